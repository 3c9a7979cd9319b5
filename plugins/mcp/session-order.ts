import type { Store } from '../../core/store/store.js';
import { SESSION_COLLECTION, type SessionRecord } from './expiry.js';
import { EXPECT_GET_MS } from './stream-order.js';

/**
 * The GET/POST order of stream-order.ts across replicas, through the session's own record.
 *
 * OpeningStreams holds a session's POSTs on the replica that relayed its `initialized` or is
 * opening its GET. With several replicas behind a balancer that does not keep a session on one,
 * the client's first call can reach a replica that saw neither, overtake the GET on another, and
 * the server's question finds no stream (the conformance suite's sampling and elicitation
 * scenarios through two replicas). The session record, which every POST reads already to check
 * the session's agent, says three things more for a client that declared it can be asked:
 * `asks` (set with the record at initialize), `initialized_at` (written before the `initialized`
 * notification is answered, so the client's next request finds it) and `stream_up` (written
 * once, when the server has answered the session's first GET). A POST whose record says the GET
 * is expected and not yet up waits for it by reading the record again, for what is left of
 * `EXPECT_GET_MS` after `initialized_at` (never longer than that by its own clock: another
 * replica's clock may be ahead or behind). Two writes per such session, none per request.
 *
 * What stays per replica: a reconnecting GET (after the first) holds POSTs only on its own
 * replica, and the first GET's hold ends with the expectation here, not when the server answers.
 */
export const POLL_MS = 20;

/** Marks `initialized` on the record of a session whose client can be asked (awaited before the notification is answered). */
export async function markInitialized(store: Store, key: string, rec: SessionRecord): Promise<void> {
  if (!rec.asks || rec.initialized_at !== undefined || rec.stream_up) return;
  const at = new Date().toISOString();
  await store.collection<SessionRecord>(SESSION_COLLECTION).update(key, (cur) =>
    // the binding it was read as, still unmarked: a record replaced meanwhile is left alone
    cur && cur.agent_id === rec.agent_id && cur.created_at === rec.created_at && cur.initialized_at === undefined ? { ...cur, initialized_at: at } : undefined,
  );
}

/** Marks the session's stream up (the server answered its first GET). */
export async function markStreamUp(store: Store, key: string, rec: SessionRecord): Promise<void> {
  if (!rec.asks || rec.stream_up) return;
  await store.collection<SessionRecord>(SESSION_COLLECTION).update(key, (cur) =>
    cur && cur.agent_id === rec.agent_id && cur.created_at === rec.created_at && !cur.stream_up ? { ...cur, stream_up: true } : undefined,
  );
}

/** ms left of the wait for the session's first GET by its record, 0 when none is expected */
export function expectedFor(rec: SessionRecord, now = Date.now(), expectMs = EXPECT_GET_MS): number {
  if (!rec.asks || rec.stream_up || rec.initialized_at === undefined) return 0;
  const since = now - Date.parse(rec.initialized_at);
  if (!Number.isFinite(since)) return 0;
  return Math.min(expectMs, Math.max(0, expectMs - since));
}

/**
 * false at once when the record expects no GET; otherwise a promise of true once another replica has
 * marked the stream up, the record is gone, or the expectation lapsed.
 */
export function streamElsewhere(store: Store, key: string, rec: SessionRecord, expectMs = EXPECT_GET_MS): Promise<true> | false {
  const left = expectedFor(rec, Date.now(), expectMs);
  if (left <= 0) return false;
  // one reader per session and replica, however many of its POSTs wait: a client that sends a
  // thousand requests in the window costs 25 reads, not 25,000
  let byKey = polls.get(store);
  if (!byKey) polls.set(store, (byKey = new Map()));
  const running = byKey.get(key);
  if (running) return running;
  const p = poll(store, key, Date.now() + left).finally(() => byKey.delete(key));
  byKey.set(key, p);
  return p;
}

/** the waits being read now, by store (a replica's) and session key; an entry lives at most EXPECT_GET_MS */
const polls = new WeakMap<Store, Map<string, Promise<true>>>();

async function poll(store: Store, key: string, until: number): Promise<true> {
  const sessions = store.collection<SessionRecord>(SESSION_COLLECTION);
  for (;;) {
    const wait = Math.min(POLL_MS, until - Date.now());
    if (wait <= 0) return true;
    await new Promise((r) => setTimeout(r, wait));
    // a store that cannot answer ends the wait: the order is the network's, as without this
    const cur = await sessions.get(key).catch(() => null);
    if (!cur || cur.stream_up) return true;
  }
}
