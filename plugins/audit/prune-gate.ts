import type { Store } from '../../core/store/store.js';
import { CHECKPOINT_COLLECTION, checkCheckpoint, checkpointKey, type Checkpoint } from './checkpoint.js';
import { assertEntry, type AuditEntry } from './payload.js';
import { AUDIT_COLLECTION } from './compact.js';
import { checkEntry } from './verify.js';

/**
 * The retention gate: a prefix of a chain may be exported, covered by a prune checkpoint and
 * deleted only when it verifies, from the chain's start, up to and including its link to the first
 * entry that stays. A prune checkpoint is signed with the attestation key, and `audit verify`
 * starts a pruned chain from it: signed over a tampered prefix, it would turn a BROKEN chain into
 * an OK one (issue 38 item 4). So every entry of the prefix passes the checks `audit verify` runs
 * — position, no gap, payload hash, HMAC, link to its predecessor (the first one to its signed
 * prune anchor, or a null prev_hash at seq 0) — and so does the first kept entry, whose link
 * proves the checkpointed hash is the one the rest of the chain continues from.
 *
 * `anchorPins`: the keys an anchor must be signed by. Whoever can write the store can also write a
 * prune checkpoint signed with a key of their own after deleting a chain's start; continuing from
 * it, retention would sign a genuine checkpoint over what follows and the deletion would pass even
 * `audit verify --pin`. With the persistent key the server pins its own key (and the operator's
 * earlier ones); with ephemeral keys nothing can be pinned, here or in `audit verify`.
 */
export const REFUSAL_REASONS = [
  'no_prune_anchor',
  'sequence_gap',
  'malformed_entry',
  'position_mismatch',
  'payload_hash_mismatch',
  'hmac_mismatch',
  'chain_link_broken',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export type GateResult =
  | {
      ok: true;
      /** entries from the chain's start that may go (expired, and never the newest entry) */
      count: number;
      /** those entries, when `collect` was asked */
      entries: AuditEntry[];
      /** the prune checkpoint the first stored entry links to (null: the chain starts at seq 0) */
      anchor: Checkpoint | null;
    }
  | { ok: false; reason: RefusalReason; seq: number; detail: string };

const refuse = (reason: RefusalReason, seq: number, detail: string): GateResult => ({ ok: false, reason, seq, detail });

/**
 * Walks `org`'s chain from its first stored entry through the entries older than `cutoff` (at most
 * `max` of them) and the entry after them, checking each. Reads the expired prefix plus one entry,
 * never the rest of the chain.
 */
export async function checkPrunablePrefix(
  store: Store,
  secret: string,
  org: string,
  cutoff: string,
  o: { max?: number; collect?: boolean; pageSize?: number; anchorPins?: readonly string[] } = {},
): Promise<GateResult> {
  const col = store.collection<unknown>(AUDIT_COLLECTION);
  const max = o.max ?? Number.POSITIVE_INFINITY;
  const pageSize = o.pageSize ?? 1000;
  const entries: AuditEntry[] = [];
  let anchor: Checkpoint | null = null;
  let prev: AuditEntry | undefined;
  let expected = -1;
  let count = 0;
  let start: string | undefined;
  for (;;) {
    const page = await col.list({ prefix: `${org}/`, start, limit: pageSize });
    for (const { key, value } of page) {
      const seq = Number(key.slice(key.lastIndexOf('/') + 1));
      if (expected === -1) {
        if (!Number.isSafeInteger(seq) || seq < 0) return refuse('sequence_gap', 0, `the chain starts at an unreadable key ${key}`);
        expected = seq;
        if (seq > 0) {
          // a chain whose start is gone must have been pruned: its first entry links to a valid prune checkpoint
          const v = await store.collection<unknown>(CHECKPOINT_COLLECTION).get(checkpointKey(org, seq - 1));
          const r = v === undefined ? null : await checkCheckpoint(v, o.anchorPins);
          if (!r || !r.ok || r.cp.org_id !== org || r.cp.seq !== seq - 1 || r.cp.reason !== 'prune') {
            return refuse('no_prune_anchor', seq - 1, `the chain starts at seq ${seq} and no valid prune checkpoint covers seq ${seq - 1}${r && !r.ok ? ` (${r.reason})` : ''}`);
          }
          anchor = r.cp;
          prev = { payload_hash: r.cp.head_hash } as AuditEntry;
        }
      }
      if (seq !== expected) return refuse('sequence_gap', expected, `entry ${expected} is missing (found ${key})`);
      try {
        assertEntry(value);
      } catch (err) {
        return refuse('malformed_entry', seq, (err as Error).message);
      }
      const c = checkEntry(secret, org, seq, value, prev);
      if (!c.payload_hash.ok) return refuse('payload_hash_mismatch', seq, 'payload hash mismatch');
      if (!c.hmac.ok) return refuse('hmac_mismatch', seq, 'HMAC mismatch');
      if (!c.chain.ok) {
        const why = c.chain.detail ?? 'chain linkage broken';
        return refuse(why.includes('recorded position') ? 'position_mismatch' : 'chain_link_broken', seq, why);
      }
      // the first entry that stays: verified, and linked to the last one that goes
      if (count >= max || value.timestamp >= cutoff) return { ok: true, count, entries, anchor };
      count++;
      if (o.collect) entries.push(value);
      prev = value;
      expected++;
    }
    if (page.length < pageSize) break;
    start = page[page.length - 1].key + '\u0000';
  }
  // the whole chain is expired: its newest entry stays (the next seq is read from it)
  if (count > 0) {
    count--;
    if (o.collect) entries.pop();
  }
  return { ok: true, count, entries, anchor };
}
