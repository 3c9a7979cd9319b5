import { Readable } from 'node:stream';
import { HttpError } from '../../core/errors.js';
import { parseStrictJson } from '../../core/json/strict.js';
import type { Reply } from '../../core/types.js';
import { McpProblems } from './errors.js';
import { respondsTo as respondsToId, type ReviewMode, type Reviewed, type ReviewTask } from './relay-review.js';
import { ANSWER_INLINE_CHARS } from './screening.js';
import { relayedFields } from './event-ids.js';
import type { StreamEvents } from './streams.js';
import { formatEvent, formatJsonEvent, parseBlock, SseParser, type SseEvent } from './sse.js';
import { discard, type UpstreamAnswer } from './upstream.js';
import { ahead, joined, rest, type Piece } from './look-ahead.js';

/**
 * The server's answer on its way to the client (issue 38, item 3). Every message in it, whatever
 * path it takes (a JSON body, a JSON batch, each event of a stream, the body of a non-2xx answer),
 * is parsed strictly (core/json/strict.ts: no NaN/Infinity, comments, trailing text or duplicate
 * keys, which lenient client parsers accept or read differently) and handed to the relay's review,
 * and the client gets the re-serialised value: it reads exactly what was reviewed. What cannot be
 * parsed or reviewed is withheld: the answer to a request becomes a JSON-RPC error under the
 * request's id (an event on a stream, which then ends; a JSON body otherwise), so the client's
 * request fails at once instead of reading, or waiting on, something nobody reviewed.
 */
export interface JsonRpc {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

export interface Answer {
  server: string;
  /** the relayed request's id; undefined when a notification or a response was relayed */
  requestId: string | number | undefined;
  /** the relay's review of one message: the message to relay, or undefined to drop it */
  rewrite(m: JsonRpc): Promise<JsonRpc | undefined>;
  /** throws the protocol error when JSON text nests past the cap (every walk after the parse recurses) */
  checkDepth(text: string): void;
  /** an answer, or the rest of a stream, was withheld (the caller logs and counts it) */
  withheld(detail: string): void;
  /** the cap of an answer read whole and of each event; MAX_ANSWER_BYTES when absent */
  maxBytes?: number;
  /**
   * A large answer's depth check, strict parse, review and re-serialisation, all in a worker
   * (relay-review.ts reviewText, the same steps as below), or undefined to do them here.
   */
  review?(text: ReviewTask['text'], mode: ReviewMode): Promise<Reviewed> | undefined;
  /**
   * The stream's record (streams.ts): its token wraps every relayed event id (event-ids.ts), and
   * `record()` stores what the stream was opened for before the first id reaches the client, so a
   * resume with that id is reviewed the same way. Absent: no id is relayed.
   */
  events?: StreamEvents;
  /**
   * The standalone GET stream: an event that cannot be parsed or reviewed is dropped (its id still
   * relayed, so the client resumes past it) and the stream goes on; there is no request to fail.
   */
  dropBadEvents?: boolean;
  /** a stream resumed with Last-Event-ID: the client can resume it again whatever it relays */
  resumed?: boolean;
}

/**
 * An answer read whole, and each event of a stream, is capped: past it the upstream request is
 * aborted, so a server cannot make the sidecar hold an answer of any size.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** JSON-RPC's "internal error": the server answered, but not in a form proofgate hands on */
export const WITHHELD_CODE = -32603;

const PROTOCOL = McpProblems.upstreamProtocol.code;
/** the reason the upstream request of every relayed stream is aborted at its end: one object, not an AbortError with a stack per call */
const ENDED = new Error('the relayed stream ended');
const isProtocolError = (err: unknown): err is HttpError => err instanceof HttpError && err.code === PROTOCOL;
const protocol = (a: Answer, detail: string) => new HttpError(McpProblems.upstreamProtocol, `MCP server ${a.server} ${detail}`);

/** The media type without parameters, in lower case: `Text/Event-Stream; charset=utf-8` is an event stream. */
export function mediaType(header: string | null): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

function withheldMessage(a: Answer, detail: string): JsonRpc {
  return { jsonrpc: '2.0', id: a.requestId, error: { code: WITHHELD_CODE, message: `proofgate withheld the answer: ${detail}`, data: { code: PROTOCOL } } };
}

function strict(a: Answer, text: string): unknown {
  a.checkDepth(text);
  const p = parseStrictJson(text);
  if (!p.ok) throw protocol(a, `answered ${p.reason}`);
  return p.value;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const respondsTo = (a: Answer, m: unknown) => respondsToId(a.requestId, m);

/** the worker's review, or undefined when the answer is reviewed here */
async function reviewed(a: Answer, text: ReviewTask['text'], mode: ReviewMode): Promise<(Reviewed & { ok: true }) | undefined> {
  const r = await a.review?.(text, mode);
  if (r && !r.ok) throw protocol(a, r.reason);
  return r;
}
const decode = (raw: Uint8Array) => new TextDecoder().decode(raw);
/** the worker's bytes as a Buffer, without a copy */
const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The answer to a POST, relayed in the server's form (JSON or an event stream) or withheld. */
export async function relayAnswer(a: Answer, res: UpstreamAnswer, headers: Record<string, string>, ac: AbortController, timer: NodeJS.Timeout): Promise<Reply> {
  const media = mediaType(res.header('content-type'));
  // the statuses fetch gave no body: a 304 is none of MCP's, and a 205 says there is nothing to show
  if (res.status === 202 || res.status === 204 || res.status === 205 || res.status === 304) {
    clearTimeout(timer);
    discard(res.body);
    return { status: res.status, headers, body: undefined };
  }
  if (res.ok && media === 'text/event-stream') return streamReply(a, res.status, res.body, headers, ac, timer);
  try {
    if (res.ok && a.requestId !== undefined && media !== 'application/json') {
      // an answer proofgate cannot read is an answer it cannot review, whatever a lenient client makes of it
      ac.abort();
      clearTimeout(timer);
      throw protocol(a, `answered ${media || 'without a content type'}, not JSON or an event stream`);
    }
    const raw = await readWhole(a, res.body, ac, timer);
    if (!res.ok) return await withoutResults(a, res.status, raw, headers);
    // a large answer is decoded in the worker too (8 MiB: ~35 ms of event loop); it is never empty
    const big = await reviewed(a, raw, 'body');
    if (big) return { status: res.status, headers: { ...headers, 'content-type': 'application/json' }, body: asBuffer(big.bytes!) };
    const text = decode(raw);
    if (a.requestId === undefined && !text) return { status: res.status, headers, body: undefined };
    const value = strict(a, text);
    if (!isObject(value) && !Array.isArray(value)) throw protocol(a, 'answered JSON that is not a JSON-RPC message');
    const out = Array.isArray(value) ? (await Promise.all(value.map((p) => a.rewrite(p as JsonRpc)))).filter((x) => x !== undefined) : await a.rewrite(value as JsonRpc);
    if (out === undefined) throw protocol(a, 'answered with a result for another request');
    // a JSON answer to a request is its response: without one the client would wait for nothing
    if (a.requestId !== undefined && ![out].flat().some((m) => respondsTo(a, m))) throw protocol(a, 'answered without a response to the request');
    return { status: res.status, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(out) };
  } catch (err) {
    if (!isProtocolError(err)) throw err;
    a.withheld(err.detail);
    // a notification or response has nobody waiting on an answer: the status alone goes back
    if (a.requestId === undefined) return { status: res.status, headers, body: undefined };
    return { status: res.ok ? 200 : res.status, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(withheldMessage(a, err.detail)) };
  }
}

/**
 * An event stream, relayed event by event as relayEvents reviews it. What the relay has ready
 * before the event loop's next turn (an answer whose events and end came with its headers, as a
 * quick tool's do) goes out whole, with a length, in one write; otherwise the headers go at once
 * and the rest follows as it comes, so a slow answer is not held back.
 */
export async function streamReply(a: Answer, status: number, body: AsyncIterable<Uint8Array>, headers: Record<string, string>, ac: AbortController, timer: NodeJS.Timeout): Promise<Reply> {
  const sse = { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-store' };
  const events = relayEvents(a, body, ac, timer);
  const head = await ahead(events);
  // ended: relayEvents' finally has cleared the deadline and released the upstream request
  if (head.pending === undefined) return { status, headers: sse, body: joined(head.pieces) };
  const stream = Readable.from(rest(head.pieces, head.pending, events), { objectMode: false });
  // a generator waiting on the next upstream chunk only sees its return() once that chunk comes:
  // abort the upstream request as soon as the relayed stream is torn down
  stream.once('close', () => {
    clearTimeout(timer);
    ac.abort(ENDED);
  });
  return { status, headers: sse, body: stream };
}

/**
 * The body of a non-2xx answer (or of the answer to DELETE): relayed when it is strict JSON carrying
 * no result (an error response, a problem document), withheld otherwise. A result there is no
 * answer any client should take, yet a lenient one might; a body that is not JSON is relayed to no one.
 */
async function withoutResults(a: Answer, status: number, raw: Uint8Array, headers: Record<string, string>): Promise<Reply> {
  const big = await reviewed(a, raw, 'plain');
  if (big?.hasResult) throw protocol(a, `answered HTTP ${status} with a result`);
  if (big) return { status, headers: { ...headers, 'content-type': 'application/json' }, body: asBuffer(big.bytes!) };
  const text = decode(raw);
  if (!text) return { status, headers, body: undefined };
  const value = strict(a, text);
  if ((Array.isArray(value) ? value : [value]).some((m) => isObject(m) && Object.hasOwn(m, 'result'))) throw protocol(a, `answered HTTP ${status} with a result`);
  return { status, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

/** The answer to DELETE: its status, and its body only when withoutResults lets it through. */
export async function relayDeleteAnswer(a: Omit<Answer, 'requestId' | 'rewrite'>, res: UpstreamAnswer, ac: AbortController, timer: NodeJS.Timeout): Promise<Reply> {
  const full: Answer = { ...a, requestId: undefined, rewrite: async (m) => m };
  try {
    return await withoutResults(full, res.status, await readWhole(full, res.body, ac, timer), {});
  } catch (err) {
    if (!isProtocolError(err)) return { status: res.status, body: undefined };
    a.withheld(err.detail);
    return { status: res.status, body: undefined };
  }
}

async function readWhole(a: Answer, body: AsyncIterable<Uint8Array>, ac: AbortController, timer: NodeJS.Timeout): Promise<Buffer> {
  try {
    return await readCapped(body, a.maxBytes ?? MAX_ANSWER_BYTES, ac);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(ac.signal.aborted ? McpProblems.upstreamTimeout : McpProblems.upstreamUnavailable, `MCP server ${a.server} broke off its answer`);
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(body: AsyncIterable<Uint8Array>, cap: number, ac: AbortController): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.byteLength;
    if (size > cap) {
      ac.abort();
      throw new HttpError(McpProblems.upstreamProtocol, `the MCP server's answer is larger than ${cap} bytes`);
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/**
 * The SSE relay: each event is parsed, its JSON-RPC message reviewed, and written out before the
 * next event is read, so order is the server's. An event that cannot be parsed or reviewed ends the
 * stream, after a JSON-RPC error for the request when the client has no answer to it yet, as does a
 * stream that ends without one. When the
 * client goes away the generator is closed, which aborts the upstream request.
 */
async function* relayEvents(a: Answer, body: AsyncIterable<Uint8Array>, ac: AbortController, timer: NodeJS.Timeout): AsyncGenerator<string | Uint8Array> {
  const cap = a.maxBytes ?? MAX_ANSWER_BYTES;
  // a large event is left unparsed for the worker (sse.ts SseEvent.raw) when there is one to take it
  const parser = new SseParser(cap, a.review ? ANSWER_INLINE_CHARS : Infinity);
  const decoder = new TextDecoder();
  /** the client has a response (result or error) under the request's id */
  let answered = false;
  /** an event id reached the client: it can resume the stream with GET and Last-Event-ID */
  let resumable = !!a.resumed;
  /** the event's fields as relayed; its id is recorded before it goes out */
  const fields = async (ev: SseEvent): Promise<SseEvent> => {
    // the token is drawn only for an event that carries an id (streams.ts lazy)
    const out = relayedFields(ev, ev.id === undefined ? undefined : a.events?.token);
    if (out.id !== undefined) {
      await a.events!.record();
      resumable = true;
    }
    return out;
  };
  /** an event with nothing left to relay: its id alone (empty data, as a priming event), so the client resumes past it */
  const idOnly = (ev: SseEvent) => (ev.id === undefined ? '' : formatEvent({ id: ev.id, data: '' }));
  /** an event's text, or a large one's bytes in pieces (never decoded or joined here) */
  const one = async (raw: SseEvent): Promise<string | Uint8Array[]> => {
    if (raw.raw) {
      // the worker formats its id: the record goes first (a large event rarely comes)
      await a.events?.record();
      const whole = await reviewed(a, raw.raw, 'block');
      if (whole) {
        if (whole.bytes === null) return '';
        if (whole.responds) answered = true;
        return [whole.bytes];
      }
    }
    // parsed here: a small event, or a large one no worker took (a tools/list page, no pool)
    const parsed = raw.raw ? parseBlock(raw.raw.join('')) : raw;
    if (!parsed) return '';
    const ev = await fields(parsed);
    if (ev.comment !== undefined || !ev.data) return formatEvent(ev);
    const big = await reviewed(a, ev.data, 'event');
    if (big) {
      if (big.bytes === null) return idOnly(ev);
      if (big.responds) answered = true;
      return formatJsonEvent(ev, big.bytes);
    }
    const value = strict(a, ev.data);
    let out: unknown;
    if (Array.isArray(value)) {
      const kept = (await Promise.all(value.map((x) => (isObject(x) ? a.rewrite(x as JsonRpc) : x)))).filter((x) => x !== undefined);
      if (!kept.length) return idOnly(ev);
      out = kept;
    } else if (isObject(value)) {
      out = await a.rewrite(value as JsonRpc);
      if (out === undefined) return idOnly(ev);
    } else throw protocol(a, 'sent an event whose data is not a JSON-RPC message');
    if ([out].flat().some((m) => respondsTo(a, m))) answered = true;
    // re-serialised from the parsed value, so the client reads exactly what was reviewed
    return formatEvent({ ...ev, data: JSON.stringify(out) });
  };
  const fail = (err: unknown): string => {
    if (!isProtocolError(err)) throw err;
    a.withheld(err.detail);
    if (a.requestId === undefined || answered) return '';
    answered = true;
    return formatEvent({ event: 'message', data: JSON.stringify(withheldMessage(a, err.detail)) });
  };
  const parse = (next: () => SseEvent[]): SseEvent[] => {
    try {
      return next();
    } catch {
      throw protocol(a, `sent a server-sent event larger than ${cap} bytes`);
    }
  };
  /** the events relayed (text, and a large event's bytes as they are), and whether the stream ends here */
  const relay = async (next: () => SseEvent[]): Promise<[Piece[], boolean]> => {
    const out = new Pieces();
    try {
      for (const ev of parse(next)) {
        try {
          out.add(await one(ev));
        } catch (err) {
          if (!a.dropBadEvents || !isProtocolError(err)) throw err;
          a.withheld(err.detail);
          // dropped; a large event's id is not read on the event loop, so the client resumes before it
          if (!ev.raw) out.add(idOnly(await fields(ev)));
        }
      }
    } catch (err) {
      out.add(fail(err));
      return [out.done(), true];
    }
    return [out.done(), false];
  };
  let forgotten = false;
  /**
   * The answer goes out with these pieces: nothing is left to resume, so the stream's record goes
   * (before, so that a resume racing the answer finds nothing rather than a replay to review again)
   */
  const forget = async () => {
    if (forgotten) return;
    forgotten = true;
    await a.events?.forget();
  };
  try {
    for await (const chunk of body) {
      const [s, end] = await relay(() => parser.push(decoder.decode(chunk, { stream: true })));
      if (answered) await forget();
      yield* s;
      if (end) return;
    }
    const [s, end] = await relay(() => [...parser.push(decoder.decode()), ...parser.end()]);
    // a stream that ends unanswered without an event id (a body that only claimed to be a stream,
    // say) cannot be resumed: the client's request fails now rather than at its timeout. With an id
    // the client comes back with GET and Last-Event-ID (MCP 2025-11-25 polling: stream.ts)
    const last = end || answered || resumable || a.requestId === undefined ? '' : fail(protocol(a, 'ended its event stream without answering the request'));
    if (answered || last) await forget();
    yield* s;
    if (last) yield last;
  } finally {
    clearTimeout(timer);
    ac.abort(ENDED);
  }
}

/** what one read of the stream relays: runs of text joined, bytes kept as they are, nothing empty */
class Pieces {
  private out: Piece[] = [];
  private text = '';
  add(p: string | Piece[]): void {
    if (typeof p === 'string') {
      this.text += p;
      return;
    }
    if (this.text) this.out.push(this.text);
    this.text = '';
    this.out.push(...p);
  }
  done(): Piece[] {
    if (this.text) this.out.push(this.text);
    return this.out;
  }
}
