import { Readable } from 'node:stream';
import { parseStrictJson, type StrictJson } from '../../../core/json/strict.js';
import type { Reply } from '../../../core/types.js';
import { reviewResult, Withheld, type ReviewContext } from './answer-review.js';
import { rpcError, RpcCodes, type RpcId } from './jsonrpc.js';
import { SseReader, sseEvent, type SseEvent } from './sse.js';
import { UpstreamError, type UpstreamResponse } from './upstream.js';
import { rpcAnswerOf } from './rest-peer.js';

/**
 * The peer's answer, read and reviewed (answer-review.ts) before the client sees it, then written
 * anew from what was reviewed: a JSON body whole, an SSE stream event by event as each arrives (a
 * stream is never buffered whole). It is read strictly (core/json/strict.ts: no NaN, no repeated
 * member), so the answer reviewed is the answer every client reads. Whatever cannot be read, or
 * names another caller's task, is withheld: JSON-RPC -32055 under the request's id (in a stream, as
 * its last event).
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** above this many characters an answer (or event) is read in the worker pool: the strict reading grows with it */
export const INLINE_PARSE_CHARS = 64 * 1024;

export interface AnswerOptions {
  id: RpcId;
  review: ReviewContext;
  /** the extended card's own review: verified against the peer's JWKS, rewritten, re-signed */
  card?: (card: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** headers put on the reply besides the peer's (the request's verdict) */
  headers: Record<string, string>;
  maxBytes?: number;
  /** the strict reading of a large text, off the event loop */
  parseLarge?: (text: string) => Promise<StrictJson>;
  /** the peer answered in the HTTP+JSON binding: read as the JSON-RPC answer it restates (rest-peer.ts) */
  rest?: boolean;
}

async function parse(o: AnswerOptions, text: string): Promise<StrictJson> {
  if (!o.parseLarge || text.length <= INLINE_PARSE_CHARS) return parseStrictJson(text);
  // a reading that did not finish (pool busy past its deadline, aborted) proves nothing: withheld
  return o.parseLarge(text).catch(() => ({ ok: false as const, reason: 'not read in time' }));
}

const withheld = (o: AnswerOptions, reason: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id: o.id,
  error: { code: RpcCodes.answerWithheld, message: `Answer withheld: ${reason}`, data: { peer: o.review.peer, reason, ...extra } },
});

/** one JSON-RPC answer to the request: an error is passed on, a result is reviewed */
async function reviewMessage(o: AnswerOptions, value: unknown): Promise<Record<string, unknown>> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return withheld(o, 'not a JSON-RPC response object');
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || String(m.id) !== String(o.id)) return withheld(o, 'not an answer to this request');
  const hasResult = Object.hasOwn(m, 'result');
  const hasError = Object.hasOwn(m, 'error');
  if (hasResult === hasError) return withheld(o, 'a JSON-RPC response holds exactly one of result and error');
  if (hasError) {
    const e = m.error as Record<string, unknown> | null;
    if (!e || typeof e !== 'object' || typeof e.code !== 'number' || typeof e.message !== 'string') return withheld(o, 'a malformed JSON-RPC error');
    return { jsonrpc: '2.0', id: o.id, error: e };
  }
  try {
    let result = await reviewResult(o.review, m.result);
    if (o.card && result && typeof result === 'object' && !Array.isArray(result)) result = await o.card(result as Record<string, unknown>);
    return { jsonrpc: '2.0', id: o.id, result };
  } catch (err) {
    if (err instanceof Withheld) return withheld(o, err.message, err.data);
    throw err;
  }
}

async function readCapped(body: Readable, cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += (c as Buffer).length;
    if (size > cap) {
      body.destroy();
      throw new Withheld(`an answer larger than ${cap} bytes`);
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function reviewAnswer(r: UpstreamResponse, o: AnswerOptions): Promise<Reply> {
  const cap = o.maxBytes ?? MAX_ANSWER_BYTES;
  const type = (r.headers['content-type'] ?? '').toLowerCase();
  const passed: Record<string, string> = { ...o.headers };
  for (const h of ['a2a-version', 'a2a-extensions']) if (r.headers[h]) passed[h] = r.headers[h];
  if (r.status >= 200 && r.status < 300 && type.startsWith('text/event-stream')) {
    return { status: r.status, headers: { ...passed, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }, body: Readable.from(reviewStream(r.body, o, cap)) };
  }
  let text: string;
  try {
    text = (await readCapped(r.body, cap)).toString('utf8');
  } catch (err) {
    if (err instanceof Withheld) return json(200, passed, withheld(o, err.message));
    const kind = err instanceof UpstreamError ? err.kind : 'failed';
    return rpcError(o.id, RpcCodes.peerUnavailable, `Peer unavailable (${kind}); the answer was cut`, { peer: o.review.peer, reason: kind }, passed);
  }
  if (o.rest) {
    // a REST error is an HTTP status with an error body; its JSON-RPC restatement is an answer like any other
    const ok = r.status >= 200 && r.status < 300;
    const parsed: StrictJson = ok && text === '' ? { ok: true, value: undefined } : await parse(o, text);
    const stated = parsed.ok ? rpcAnswerOf(o.id, r.status, parsed.value) : null;
    if (!parsed.ok) return json(200, passed, withheld(o, `the answer is ${parsed.reason}`));
    return json(200, passed, stated ? await reviewMessage(o, stated) : withheld(o, `the peer answered HTTP ${r.status} without an error body`));
  }
  const parsed = await parse(o, text);
  const answer = parsed.ok ? await reviewMessage(o, parsed.value) : withheld(o, `the answer is ${parsed.reason}`);
  // A2A answers errors with HTTP 200; a non-2xx is passed on only as the JSON-RPC error it holds
  if (r.status < 200 || r.status >= 300) {
    if (answer.error && (answer.error as { code: number }).code !== RpcCodes.answerWithheld) return json(r.status, passed, answer);
    return json(200, passed, withheld(o, `the peer answered HTTP ${r.status} without a JSON-RPC error`));
  }
  return json(200, passed, answer);
}

const json = (status: number, headers: Record<string, string>, body: unknown): Reply => ({ status, headers: { ...headers, 'content-type': 'application/json' }, body });

async function* reviewStream(body: Readable, o: AnswerOptions, cap: number): AsyncGenerator<string> {
  const reader = new SseReader(cap);
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of body) {
      let events: SseEvent[];
      try {
        events = reader.pushEvents(decoder.decode(chunk as Buffer, { stream: true }));
      } catch (err) {
        yield sseEvent(JSON.stringify(withheld(o, (err as Error).message)));
        return;
      }
      for (const ev of events) {
        const out = await reviewEvent(o, ev);
        yield sseEvent(JSON.stringify(out));
        if ((out.error as { code?: number } | undefined)?.code === RpcCodes.answerWithheld) return;
      }
    }
    const rest = reader.endEvent();
    if (rest !== null) yield sseEvent(JSON.stringify(await reviewEvent(o, rest)));
  } catch (err) {
    // the peer's stream broke (timeout, reset): the client learns it under the request id
    const kind = err instanceof UpstreamError ? err.kind : ((err as { code?: string }).code ?? 'failed');
    yield sseEvent(JSON.stringify({ jsonrpc: '2.0', id: o.id, error: { code: RpcCodes.peerUnavailable, message: `Peer unavailable (${kind}); the stream was cut`, data: { peer: o.review.peer, reason: kind } } }));
  } finally {
    body.destroy();
  }
}

async function reviewEvent(o: AnswerOptions, ev: SseEvent): Promise<Record<string, unknown>> {
  const parsed = await parse(o, ev.data);
  if (!parsed.ok) return withheld(o, `an event is ${parsed.reason}`);
  if (!o.rest) return reviewMessage(o, parsed.value);
  // an HTTP+JSON stream's events are bare results; its error event carries the REST error body
  const stated = ev.type === 'error' ? rpcAnswerOf(o.id, 500, parsed.value) : rpcAnswerOf(o.id, 200, parsed.value);
  return stated ? reviewMessage(o, stated) : withheld(o, 'an error event without an error body');
}
