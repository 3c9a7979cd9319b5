import type { SseEvent } from './sse.js';

/**
 * Event ids as the client sees them. The proxy hands on the server's `id:` wrapped as
 * `pg1.<token>.<server id>`, where the token names a record (streams.ts) of what the stream was
 * opened for: the request it answers (its id, method and verdict) or the standalone GET stream.
 * A client that resumes with `Last-Event-ID` thus tells the proxy which review the resumed events
 * need — a tools/call result gets its verdict again, a tools/list result that cannot be reviewed
 * against its listing is withheld, a response on the standalone stream is dropped — and the server
 * gets back exactly the id it sent. The token is 128 random bits: a client cannot name another's.
 * Pure: the worker formats large events with it too (relay-review.ts).
 */
export const EVENT_ID_PREFIX = 'pg1.';
const WRAPPED = /^pg1\.([A-Za-z0-9_-]{22})\.([^\r\n\0]*)$/;

/**
 * The shortest `retry:` relayed (ms): a server's `retry: 0` would have every client come back at
 * once, each time the stream ends; they come back through the proxy, on its connections. A
 * quarter second stops that (at most four reconnects a second per stream, and an agent holds at
 * most `mcp.max_streams_per_agent` streams) and relays a server's own hint unchanged from there
 * on: the floor was 1000 ms, and the conformance suite's `sse-retry` client scenario, whose server
 * asks for 500, failed through proofgate on a client that waited what it was told.
 */
export const MIN_RETRY_MS = 250;

export function wrapEventId(token: string, id: string): string {
  return `${EVENT_ID_PREFIX}${token}.${id}`;
}

export function unwrapEventId(value: string): { token: string; id: string } | null {
  const m = WRAPPED.exec(value);
  return m ? { token: m[1], id: m[2] } : null;
}

/**
 * An event's fields as relayed: its id wrapped (a NUL in it would make clients ignore the id, so
 * such an id is not relayed at all), and its `retry:` no shorter than MIN_RETRY_MS. Without a
 * token (no stream record) the id is not relayed: a client could not resume with it anyway.
 */
export function relayedFields(ev: SseEvent, token: string | undefined): SseEvent {
  const out: SseEvent = { data: ev.data };
  if (ev.comment !== undefined) out.comment = ev.comment;
  if (ev.id !== undefined && token !== undefined && !ev.id.includes('\0')) out.id = wrapEventId(token, ev.id);
  if (ev.event !== undefined) out.event = ev.event;
  if (ev.retry !== undefined && /^\d{1,9}$/.test(ev.retry)) out.retry = String(Math.max(MIN_RETRY_MS, Number(ev.retry)));
  return out;
}
