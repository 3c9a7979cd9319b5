import { Readable } from 'node:stream';
import { HttpError, Problems } from '../../core/errors.js';
import type { Store } from '../../core/store/store.js';
import type { Reply, RequestContext } from '../../core/types.js';
import { MAX_ANSWER_BYTES, mediaType, type JsonRpc } from './answer.js';
import { SESSION_COLLECTION, type SessionRecord } from './expiry.js';

/**
 * JSON-RPC batches (docs/mcp.md, "Batches"). MCP 2025-03-26 allows a POST to carry an array of
 * messages; 2025-06-18 removed them again. So a batch is relayed only on a session whose initialize
 * negotiated a revision that has them (the server's answer, recorded by the relay), and refused on
 * any other, on a request without a session (whose revision the proxy never saw) and under an
 * Mcp-Protocol-Version header that names another revision.
 *
 * Each member is relayed as if it had been posted alone: its own upstream request through the same
 * relay, gate and review (the pin, the policy, the argument screening, the answer's review that
 * drops any result but the member's own), so nothing in a batch is reviewed less than it would be
 * alone, and a denied member becomes its own JSON-RPC answer while the others go through. The
 * answers are gathered back under their members' ids: a JSON array when every member answered
 * JSON, an event stream merging every member's stream (and the JSON answers as events) otherwise.
 * Bounds: at most MAX_BATCH members (the body schema says the same), at most BATCH_CONCURRENCY
 * upstream requests at once, and request ids unique within the batch (two requests under one id
 * could not be told apart by their answers, so such a batch is refused whole).
 */
export const MAX_BATCH = 32;
const BATCH_CONCURRENCY = 4;
/** the MCP revisions whose transport carries JSON-RPC batches */
export const BATCH_VERSIONS: ReadonlySet<string> = new Set(['2025-03-26']);
/** JSON-RPC's "invalid request" */
const INVALID_REQUEST = -32600;
/** JSON-RPC's "internal error", as the relay's own withheld answers use */
const INTERNAL = -32603;
const MAX_VERSION = 32;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const validId = (id: unknown): id is string | number => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

/**
 * The initialize answer under the relayed request's id names the revision the server chose; the
 * session's record keeps it (only while it is still this agent's session).
 */
export async function noteNegotiated(store: Store, sessionKey: string, agentId: string, m: unknown): Promise<void> {
  const v = isObject(m) && isObject(m.result) ? m.result.protocolVersion : undefined;
  if (typeof v !== 'string' || !v || v.length > MAX_VERSION) return;
  await store.collection<SessionRecord>(SESSION_COLLECTION).update(sessionKey, (cur) => (cur && cur.agent_id === agentId ? { ...cur, protocol_version: v } : undefined));
}

/** What the body schema says of one message, said of a batch member (whose refusal is its own JSON-RPC error). */
function memberProblem(m: Record<string, unknown>): string | null {
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (Object.hasOwn(m, 'id') && !validId(m.id)) return 'id must be a string or an integer';
  if (Object.hasOwn(m, 'method') && (typeof m.method !== 'string' || !m.method || m.method.length > 256)) return 'method must be a string of 1–256 characters';
  for (const k of ['params', 'result', 'error']) if (Object.hasOwn(m, k) && !isObject(m[k])) return `${k} must be an object`;
  const kinds = ['method', 'result', 'error'].filter((k) => Object.hasOwn(m, k));
  if (kinds.length !== 1) return 'a message is exactly one of a request or notification (method), a result or an error';
  if (kinds[0] === 'result' && !Object.hasOwn(m, 'id')) return 'a result needs an id';
  return null;
}

const errorMessage = (id: unknown, code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id: validId(id) ? id : null, error: { code, message: `proofgate: ${message}`, ...(data === undefined ? {} : { data }) } });
const isRequest = (m: Record<string, unknown>) => typeof m.method === 'string' && validId(m.id);

export interface BatchSession {
  store: Store;
  /** the session's record key, or undefined for a request without Mcp-Session-Id */
  sessionKey: string | undefined;
}

function refuse(detail: string, field = '/body'): never {
  throw new HttpError(Problems.validation, detail, { errors: [{ field, message: detail }] });
}

async function checkVersion(ctx: RequestContext, s: BatchSession): Promise<void> {
  if (s.sessionKey === undefined) refuse('a JSON-RPC batch is relayed only on a session (Mcp-Session-Id) that negotiated MCP 2025-03-26; post its messages one by one');
  const rec = await s.store.collection<SessionRecord>(SESSION_COLLECTION).get(s.sessionKey);
  const v = rec?.protocol_version;
  if (v === undefined || !BATCH_VERSIONS.has(v)) {
    refuse(`JSON-RPC batches are not part of the MCP revision this session negotiated (${v ?? 'unknown'}; only 2025-03-26 has them): post its messages one by one`);
  }
  const header = ctx.headers['mcp-protocol-version'];
  if (header !== undefined && header !== v) refuse(`Mcp-Protocol-Version ${JSON.stringify(String(header).slice(0, 40))} is not the revision this session negotiated (${v})`);
}

/**
 * Each member's answer as the relay serialised it (one JSON value: a message or an array of them),
 * or its stream. The bytes are gathered as they are, never parsed again: a batch of 32 answers of
 * up to 8 MiB each would otherwise be parsed and re-serialised whole on the event loop.
 */
type Outcome = { parts: Buffer[]; stream?: Readable };

/** what a batch's JSON answers may add up to: one answer's cap (answer.ts MAX_ANSWER_BYTES) */
const BATCH_ANSWER_BYTES = MAX_ANSWER_BYTES;
/** a non-2xx body read for the upstream's error message only up to this size */
const SMALL_BODY = 64 * 1024;

const own = (id: unknown, code: number, message: string, data?: unknown) => Buffer.from(JSON.stringify(errorMessage(id, code, message, data)));

/** One member's relayed answer; `budget` is what the batch's JSON answers may still take. */
function collect(member: Record<string, unknown>, reply: Reply, budget: { left: number }): Outcome {
  const request = isRequest(member);
  const status = reply.status ?? 200;
  const body = reply.body;
  if (body instanceof Readable) return { parts: [], stream: body };
  // an event stream the relay had whole before it answered (answer.ts streamReply) is events all the same
  if ((typeof body === 'string' || Buffer.isBuffer(body)) && mediaType(reply.headers?.['content-type'] ?? null) === 'text/event-stream') {
    return { parts: [], stream: Readable.from(body.length ? [body] : [], { objectMode: false }) };
  }
  const bytes = body === undefined || body === null ? null : typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const take = (b: Buffer): Outcome => {
    // past the budget the member's answer is withheld (it ran; its answer is not relayed in bulk)
    if (b.length > budget.left) return { parts: request ? [own(member.id, INTERNAL, `the batch's answers passed ${BATCH_ANSWER_BYTES} bytes, so this member's was withheld; send it alone`)] : [] };
    budget.left -= b.length;
    return { parts: [b] };
  };
  if (status >= 200 && status < 300) {
    // a 2xx JSON answer to a request holds its response, or the relay's withheld error under its id (answer.ts)
    if (bytes?.length) return take(bytes);
    return { parts: request ? [own(member.id, INTERNAL, `the MCP server answered HTTP ${status} to this member without a response`)] : [] };
  }
  if (!request) return { parts: [] };
  // an upstream refusal (4xx/5xx) seldom names the member's id: it becomes the member's own error
  let why = '';
  if (bytes?.length && bytes.length <= SMALL_BODY) {
    let v: unknown = null;
    try {
      v = JSON.parse(bytes.toString('utf8'));
    } catch {
      // the relay re-serialised it, so this is not expected; the member still gets its own error
    }
    const ms = Array.isArray(v) ? v : [v];
    if (ms.some((m) => isObject(m) && Object.hasOwn(m, 'error') && String(m.id) === String(member.id))) return take(bytes);
    const e = ms.find((m) => isObject(m) && isObject(m.error)) as { error: { message?: unknown } } | undefined;
    if (typeof e?.error.message === 'string') why = `: ${e.error.message.slice(0, 500)}`;
  }
  return { parts: [own(member.id, INTERNAL, `the MCP server answered HTTP ${status} to this member without a response${why}`)] };
}

/** the members' JSON values as one JSON array: an array value's members are spliced in */
function jsonArray(parts: Buffer[]): Buffer {
  const inner = parts.flatMap((p) => (p[0] === 0x5b && p[p.length - 1] === 0x5d ? (p.length > 2 ? [p.subarray(1, -1)] : []) : [p]));
  const out: Buffer[] = [Buffer.from('[')];
  for (const [i, p] of inner.entries()) out.push(...(i ? [Buffer.from(','), p] : [p]));
  out.push(Buffer.from(']'));
  return Buffer.concat(out);
}

/** every member's stream, interleaved as their events come; each chunk is whole events (answer.ts) */
async function* merged(head: Buffer[], streams: Readable[]): AsyncGenerator<string | Uint8Array> {
  if (head.length) yield Buffer.concat(head);
  const iters = streams.map((s) => s[Symbol.asyncIterator]() as AsyncIterator<string | Uint8Array>);
  const pending = new Map<number, Promise<[number, IteratorResult<string | Uint8Array>]>>();
  const pull = (i: number) =>
    pending.set(
      i,
      iters[i].next().then(
        (r) => [i, r],
        // a member's stream that broke has already withheld what it could not relay (answer.ts)
        () => [i, { done: true, value: undefined }],
      ),
    );
  iters.forEach((_, i) => pull(i));
  try {
    while (pending.size) {
      const [i, r] = await Promise.race(pending.values());
      pending.delete(i);
      if (r.done) continue;
      yield r.value;
      pull(i);
    }
  } finally {
    // the client left, or every stream ended: none is left holding its upstream request
    for (const s of streams) s.destroy();
  }
}

/**
 * Relays a batch; `relayOne` is the single-message relay, run once per member with the member as
 * the body (its own session check, gate and review).
 */
export async function relayBatch(ctx: RequestContext, s: BatchSession, relayOne: (member: JsonRpc) => Promise<Reply>): Promise<Reply> {
  await checkVersion(ctx, s);
  const batch = ctx.body as unknown[];
  if (batch.length === 0) refuse('an empty JSON-RPC batch is not a request');
  if (batch.length > MAX_BATCH) refuse(`a JSON-RPC batch holds at most ${MAX_BATCH} messages`);
  const ids = new Set<string>();
  const answers: Outcome[] = new Array(batch.length);
  const budget = { left: BATCH_ANSWER_BYTES };
  const relayed: number[] = [];
  for (const [i, m] of batch.entries()) {
    if (!isObject(m)) {
      answers[i] = { parts: [own(null, INVALID_REQUEST, `batch member ${i} is not a JSON-RPC message object`)] };
      continue;
    }
    if (typeof m.method === 'string' && m.method.normalize('NFKC').trim().toLowerCase() === 'initialize') refuse('initialize must not be part of a JSON-RPC batch (MCP 2025-03-26)', `/body/${i}/method`);
    if (Object.hasOwn(m, 'method') && validId(m.id)) {
      // "7" and 7 are one id to a client that matches answers by text (the SDK does)
      if (ids.has(String(m.id))) refuse(`two requests in the batch share the id ${JSON.stringify(m.id)}: their answers could not be told apart`, `/body/${i}/id`);
      ids.add(String(m.id));
    }
    const problem = memberProblem(m);
    if (problem) answers[i] = { parts: Object.hasOwn(m, 'method') && !Object.hasOwn(m, 'id') ? [] : [own(m.id, INVALID_REQUEST, `batch member ${i}: ${problem}`)] };
    else relayed.push(i);
  }
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < relayed.length; k = next++) {
      const i = relayed[k];
      const member = batch[i] as Record<string, unknown>;
      try {
        answers[i] = collect(member, await relayOne(member as JsonRpc), budget);
      } catch (err) {
        // the member was refused before or while it was relayed (a gated method in another case, an
        // unreachable server): its own error, under its own id; a notification has no answer
        const detail = err instanceof HttpError ? err.detail : 'the member could not be relayed';
        if (!(err instanceof HttpError)) ctx.log.error({ err, member: i }, 'mcp: a batch member failed');
        const code = err instanceof HttpError && err.status === 400 ? INVALID_REQUEST : INTERNAL;
        answers[i] = { parts: isRequest(member) ? [own(member.id, code, detail, err instanceof HttpError ? { code: err.code } : undefined)] : [] };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, relayed.length) }, worker));
  } catch (err) {
    for (const a of answers) a?.stream?.destroy();
    throw err;
  }
  const parts = answers.flatMap((a) => a.parts);
  const streams = answers.flatMap((a) => (a.stream ? [a.stream] : []));
  if (!streams.length) {
    // only notifications and responses: nobody waits on an answer (MCP: 202 without a body)
    if (!parts.length) return { status: 202, body: undefined };
    return { status: 200, headers: { 'content-type': 'application/json' }, body: jsonArray(parts) };
  }
  // one event per member answer (JSON.stringify writes no line break, so each is one data line)
  const head = parts.flatMap((p) => [Buffer.from('event: message\ndata: '), p, Buffer.from('\n\n')]);
  const body = Readable.from(merged(head, streams), { objectMode: false });
  return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-store' }, body };
}

/** the single-message relay's view of one member: the batch's request with the member as its body */
export function memberContext(ctx: RequestContext, member: JsonRpc): RequestContext {
  return Object.create(ctx, { body: { value: member, enumerable: true } }) as RequestContext;
}
