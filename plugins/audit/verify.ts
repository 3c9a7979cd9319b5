import { safeEqual, sha256Ref } from '../../core/json/canonical.js';
import type { Collection } from '../../core/store/store.js';
import {
  assertEntry,
  currentPayload,
  entryHmac,
  entryKey,
  legacyPayload,
  logIdOf,
  MalformedEntryError,
  type AuditEntry,
} from './payload.js';

/**
 * The three independent checks of one entry (operations-api.md, Administration): payload hash
 * (current or legacy canonical form), HMAC (constant-time), chain linkage within the organisation.
 * Used by the admin route, the SOC 2 report and the offline CLI, so all three agree.
 */
export interface EntryChecks {
  payload_hash: { ok: boolean; form: 'current' | 'legacy' | null };
  hmac: { ok: boolean };
  chain: { ok: boolean; detail: string | null };
}

export function payloadCheck(e: AuditEntry): EntryChecks['payload_hash'] {
  // both recomputations always run: no early exit that tells which form matched by timing
  const cur = safeEqual(sha256Ref(currentPayload(e)), e.payload_hash);
  const leg = safeEqual(sha256Ref(legacyPayload(e)), e.payload_hash);
  return { ok: cur || leg, form: cur ? 'current' : leg ? 'legacy' : null };
}

export function hmacCheck(secret: string, e: AuditEntry): boolean {
  return safeEqual(entryHmac(secret, e.payload_hash), e.hmac);
}

/** Linkage of `e`, stored at (orgId, seq), to `prev` (the entry stored at seq - 1, if any). */
export function linkCheck(orgId: string, seq: number, e: AuditEntry, prev: AuditEntry | undefined): EntryChecks['chain'] {
  if (e.org_id !== orgId || e.seq !== seq || e.log_id !== logIdOf(orgId, seq)) return { ok: false, detail: 'entry is not at its recorded position' };
  if (seq === 0) return e.prev_hash === null ? { ok: true, detail: null } : { ok: false, detail: 'first entry must have a null prev_hash' };
  if (!e.prev_hash) return { ok: false, detail: 'prev_hash is empty' };
  if (!prev) return { ok: false, detail: 'previous entry is missing' };
  if (!safeEqual(prev.payload_hash, e.prev_hash)) return { ok: false, detail: "prev_hash does not match the previous entry's payload hash" };
  return { ok: true, detail: null };
}

export function checkEntry(secret: string, orgId: string, seq: number, e: AuditEntry, prev: AuditEntry | undefined): EntryChecks {
  return { payload_hash: payloadCheck(e), hmac: { ok: hmacCheck(secret, e) }, chain: linkCheck(orgId, seq, e, prev) };
}

export const isValid = (c: EntryChecks) => c.payload_hash.ok && c.hmac.ok && c.chain.ok;

/**
 * Checks the entry stored at (orgId, seq); undefined when absent. Malformed entries throw
 * MalformedEntryError. With `anchor`, the first entry after a retention prune links to the signed
 * prune checkpoint in place of its deleted predecessor, as the chain walk does.
 */
export async function verifyStored(col: Collection<unknown>, secret: string, orgId: string, seq: number, anchor?: Anchor) {
  const raw = await col.get(entryKey(orgId, seq));
  if (raw === undefined) return undefined;
  assertEntry(raw);
  let prev: AuditEntry | undefined;
  if (seq > 0) {
    const p = await col.get(entryKey(orgId, seq - 1));
    if (p !== undefined) {
      assertEntry(p);
      prev = p;
    } else if (anchor) {
      const a = await anchor(orgId, seq - 1);
      if (a) prev = { payload_hash: a.hash } as AuditEntry;
    }
  }
  const checks = checkEntry(secret, orgId, seq, raw, prev);
  return { entry: raw, checks, valid: isValid(checks) };
}

export interface Break {
  org_id: string;
  seq: number;
  log_id: string | null;
  reason: string;
}

export interface WalkResult {
  orgs: number;
  entries: number;
  broken: Break | null;
  /** per organisation walked: first seq verified (0, or the one after a prune anchor) and the last entry */
  heads: Map<string, { first: number; seq: number; hash: string }>;
}

/** A checkpointed head the walk may start after (retention pruned what came before). */
export type Anchor = (orgId: string, seq: number) => Promise<{ hash: string } | null>;

function reasonOf(c: EntryChecks): string {
  if (!c.payload_hash.ok) return 'payload hash mismatch';
  if (!c.hmac.ok) return 'HMAC mismatch';
  return c.chain.detail ?? 'chain linkage broken';
}

/**
 * Walks chains in key order (one organisation, or all), page by page, and stops at the first
 * broken link: a gap in the sequence, a malformed entry, or any failed check. `onEntry` sees every
 * intact entry (reports aggregate figures from it).
 */
export async function walkChains(
  col: Collection<unknown>,
  secret: string,
  o: { orgId?: string; onEntry?: (e: AuditEntry) => void; pageSize?: number; anchor?: Anchor } = {},
): Promise<WalkResult> {
  const prefix = o.orgId ? `${o.orgId}/` : '';
  let start: string | undefined;
  let org: string | null = null;
  let prev: AuditEntry | undefined;
  let expected = 0;
  const res: WalkResult = { orgs: 0, entries: 0, broken: null, heads: new Map() };
  for (;;) {
    const page = await col.list({ prefix, start, limit: o.pageSize ?? 1000 });
    for (const { key, value } of page) {
      const slash = key.lastIndexOf('/');
      const keyOrg = key.slice(0, slash);
      const seq = Number(key.slice(slash + 1));
      if (keyOrg !== org) {
        org = keyOrg;
        prev = undefined;
        expected = 0;
        res.orgs++;
        // a chain whose start was pruned continues from the signed checkpoint at the prune point
        if (o.anchor && Number.isSafeInteger(seq) && seq > 0) {
          const a = await o.anchor(keyOrg, seq - 1);
          if (a) {
            expected = seq;
            prev = { payload_hash: a.hash } as AuditEntry;
          }
        }
        res.heads.set(keyOrg, { first: expected, seq: -1, hash: '' });
      }
      const logId = Number.isSafeInteger(seq) ? logIdOf(keyOrg, seq) : null;
      if (!Number.isSafeInteger(seq) || seq !== expected) {
        res.broken = { org_id: keyOrg, seq: expected, log_id: logIdOf(keyOrg, expected), reason: `entry ${expected} is missing (found ${key})` };
        return res;
      }
      try {
        assertEntry(value);
      } catch (err) {
        if (!(err instanceof MalformedEntryError)) throw err;
        res.broken = { org_id: keyOrg, seq, log_id: logId, reason: err.message };
        return res;
      }
      const checks = checkEntry(secret, keyOrg, seq, value, prev);
      if (!isValid(checks)) {
        res.broken = { org_id: keyOrg, seq, log_id: logId, reason: reasonOf(checks) };
        return res;
      }
      o.onEntry?.(value);
      const h = res.heads.get(keyOrg)!;
      h.seq = seq;
      h.hash = value.payload_hash;
      res.entries++;
      prev = value;
      expected++;
    }
    if (page.length < (o.pageSize ?? 1000)) return res;
    start = page[page.length - 1].key + '\u0000';
  }
}
