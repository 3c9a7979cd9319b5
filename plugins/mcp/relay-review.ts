import { jsonDepth } from '../../core/json/depth.js';
import { parseStrictJson } from '../../core/json/strict.js';
import { relayedFields } from './event-ids.js';
import { reviewServerMessage, VERDICT_META, type Refusal } from './server-messages.js';
import { formatEvent, formatJsonEvent, parseBlock } from './sse.js';

// defined with the review of server messages, which strips a server's own
export { VERDICT_META };

/**
 * The relay's review of an answer, in the one form both the event loop (proxy.ts's rewrite) and a
 * worker thread (worker.ts, for a large answer) run, so the two cannot drift apart. Only tools/list
 * needs more (the store, the pins): its pages are capped at 2 MiB and reviewed on the event loop.
 */
type Message = { id?: unknown; result?: unknown };

/** what the relay of one request knows while it reviews the messages of its answer */
export interface ReviewState {
  /** the relayed request's id; undefined when a notification or a response was relayed */
  requestId: string | number | undefined;
  /** a result under the request's id was handed on already: a second one is stray */
  claimed: boolean;
  /** a tools/call's verdict (JWT), put under the result's `_meta` */
  verdict?: string;
  /** set when a notifications/tools/list_changed passed: the caller marks the listing stale (relist.ts) */
  listChanged?: boolean;
  /**
   * the standalone GET stream, or a stream resumed on it: a response that is not the one to
   * `requestId` (an error response included) and a message that is neither a response nor a
   * server request or notification are dropped (MCP: the GET stream carries no other responses)
   */
  onlyOwnResponses?: boolean;
  /** set: the result to `requestId` is replaced by a JSON-RPC error with this message (a resumed tools/list) */
  withholdResult?: string;
  /** server requests dropped that the proxy answers in the client's stead (taken by the caller) */
  refused?: Refusal[];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
export const hasResultObject = (m: unknown): boolean => !!m && typeof m === 'object' && !!(m as Message).result && typeof (m as Message).result === 'object';

/**
 * undefined: a result for a request other than the one relayed (or a second one for it), dropped;
 * see proxy.ts's rewrite. The first result for the request is claimed (and carries the verdict).
 */
export function reviewMessage<M>(m: M, s: ReviewState): M | undefined {
  if (isObject(m) && !Object.hasOwn(m, 'result') && !Object.hasOwn(m, 'error')) {
    // a request or notification of the server: reviewed by its method (server-messages.ts)
    if (typeof m.method === 'string') return reviewServerMessage(m, s) as M | undefined;
    return s.onlyOwnResponses ? undefined : m;
  }
  if (!hasResultObject(m)) return s.onlyOwnResponses && !respondsTo(s.requestId, m) ? undefined : m;
  if (s.requestId === undefined || String((m as Message).id) !== String(s.requestId) || s.claimed) return undefined;
  s.claimed = true;
  if (s.withholdResult !== undefined) return { jsonrpc: '2.0', id: (m as Message).id, error: { code: -32603, message: s.withholdResult, data: { code: 'mcp_upstream_protocol' } } } as M;
  return s.verdict === undefined ? m : withVerdict(m, s.verdict);
}

export function withVerdict<M>(m: M, jwt: string): M {
  const result = (m as Message).result as Record<string, unknown>;
  const meta = result._meta && typeof result._meta === 'object' ? (result._meta as Record<string, unknown>) : {};
  return { ...m, result: { ...result, _meta: { ...meta, [VERDICT_META]: jwt } } };
}

/** a response (result or error) to the relayed request, its id compared as text as clients do */
export const respondsTo = (requestId: string | number | undefined, m: unknown): boolean =>
  requestId !== undefined && isObject(m) && (Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error')) && String(m.id) === String(requestId);

/**
 * `body`: a JSON answer to a 2xx; `event`: one SSE event's data; `plain`: the body of a non-2xx
 * answer (relayed only without results). answer.ts holds what each means for the relay.
 */
export type ReviewMode = 'body' | 'event' | 'plain' | 'block';

export interface ReviewTask extends ReviewState {
  /**
   * a JSON body as read (UTF-8, decoded here as answer.ts would), an event's data, or (`block`) a
   * whole event unparsed, in pieces (sse.ts SseEvent.raw): `bytes` is then the event as relayed
   */
  text: string | Uint8Array | string[];
  mode: ReviewMode;
  maxDepth: number;
  /** the stream's token: a `block` event's id is relayed wrapped (event-ids.ts) */
  idToken?: string;
}

/**
 * `reason` completes "MCP server <name> …". `bytes` is the re-serialised answer in UTF-8 (null: an
 * event with nothing left to relay): encoding 8 MiB of text costs the thread that does it ~50 ms; `claimed` the state after it; `responds` whether it answers the request;
 * `hasResult` whether any message in it carries a result (`plain`); `refused`: server requests it
 * dropped, for the caller to answer in the client's stead as it does for answers reviewed inline.
 */
export type Reviewed = { ok: false; reason: string } | { ok: true; bytes: Uint8Array | null; claimed: boolean; responds: boolean; hasResult: boolean; listChanged?: boolean; refused?: Refusal[] };

/** The work answer.ts does on an answer's text, without a promise in between (worker.ts runs it). */
export function reviewText(task: ReviewTask): Reviewed {
  if (task.mode === 'block') return reviewBlock(task);
  const text = typeof task.text === 'string' ? task.text : Array.isArray(task.text) ? task.text.join('') : new TextDecoder().decode(task.text);
  if (jsonDepth(text, task.maxDepth) > task.maxDepth) return { ok: false, reason: `answered JSON nested deeper than ${task.maxDepth} levels` };
  const p = parseStrictJson(text);
  if (!p.ok) return { ok: false, reason: `answered ${p.reason}` };
  const value = p.value;
  const s: ReviewState = { requestId: task.requestId, claimed: task.claimed, verdict: task.verdict, onlyOwnResponses: task.onlyOwnResponses, withholdResult: task.withholdResult };
  const done = (out: unknown): Reviewed => {
    const responds = [out].flat().some((m) => respondsTo(s.requestId, m));
    const hasResult = [out].flat().some((m) => isObject(m) && Object.hasOwn(m, 'result'));
    return { ok: true, bytes: out === undefined ? null : Buffer.from(JSON.stringify(out)), claimed: s.claimed, responds, hasResult, listChanged: !!s.listChanged, ...(s.refused?.length ? { refused: s.refused } : {}) };
  };
  if (task.mode === 'plain') return done(value);
  if (task.mode === 'body') {
    if (!isObject(value) && !Array.isArray(value)) return { ok: false, reason: 'answered JSON that is not a JSON-RPC message' };
    const out = Array.isArray(value) ? value.map((x) => reviewMessage(x, s)).filter((x) => x !== undefined) : reviewMessage(value, s);
    if (out === undefined) return { ok: false, reason: 'answered with a result for another request' };
    // a JSON answer to a request is its response: without one the client would wait for nothing
    if (s.requestId !== undefined && ![out].flat().some((m) => respondsTo(s.requestId, m))) return { ok: false, reason: 'answered without a response to the request' };
    return done(out);
  }
  if (Array.isArray(value)) {
    const kept = value.map((x) => (isObject(x) ? reviewMessage(x, s) : x)).filter((x) => x !== undefined);
    return done(kept.length ? kept : undefined);
  }
  if (isObject(value)) return done(reviewMessage(value, s));
  return { ok: false, reason: 'sent an event whose data is not a JSON-RPC message' };
}

/** answer.ts's relay of one event (relayEvents' `one`), from its unparsed text */
function reviewBlock(task: ReviewTask): Reviewed {
  const parsed = parseBlock((task.text as string[]).join(''));
  const unchanged = { ok: true, claimed: task.claimed, responds: false, hasResult: false } as const;
  if (!parsed) return { ...unchanged, bytes: null };
  const ev = relayedFields(parsed, task.idToken);
  if (ev.comment !== undefined || !ev.data) return { ...unchanged, bytes: Buffer.from(formatEvent(ev)) };
  const r = reviewText({ ...task, text: ev.data, mode: 'event' });
  if (!r.ok) return r;
  // nothing left to relay: its id still moves the client's Last-Event-ID on (answer.ts idOnly)
  if (r.bytes === null) return { ...r, bytes: ev.id === undefined ? null : Buffer.from(formatEvent({ id: ev.id, data: '' })) };
  return { ...r, bytes: Buffer.concat(formatJsonEvent(ev, r.bytes)) };
}
