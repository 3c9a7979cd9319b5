import type { Store } from '../../core/store/store.js';
import { checkAgainstCheckpoints, checkpointAnchor } from './checkpoint.js';
import { assertEntry, logIdOf, type AuditEntry, type AuditStatus } from './payload.js';
import { auditCollection } from './store-read.js';
import { verifyStored, walkChains, type Break, type EntryChecks } from './verify.js';

export type StatusCounts = Record<AuditStatus, number>;
export const emptyCounts = (): StatusCounts => ({ verified: 0, blocked: 0, unverifiable: 0, admin: 0, refused: 0 });

/**
 * The read side other plugins get (service `audit.reader`): they ask for figures and entries and
 * never learn the collection or its key layout (`<org>/<seq>`), which stay this plugin's business.
 */
export interface AuditReader {
  /** seq of the newest entry of the organisation's chain, null when it has none */
  head(orgId: string): Promise<number | null>;
  /**
   * entries per status from `sinceIso` on, walked newest first; stops at the window's start or after
   * `cap` entries (`truncated`), so one busy tenant cannot make a call unbounded. Malformed entries
   * are skipped (the verifier reports them).
   */
  count(orgId: string, sinceIso: string, cap?: number): Promise<{ counts: StatusCounts; truncated: boolean }>;
  /** the stored entries, oldest first, as stored (values unchecked: verify checks them), at most `limit` */
  walk(orgId: string, limit: number): Promise<AuditEntry[]>;
  /** one entry checked against its predecessor (or the signed prune checkpoint that replaced it); undefined when absent; throws MalformedEntryError */
  verifyEntry(orgId: string, seq: number): Promise<{ valid: boolean; checks: EntryChecks } | undefined>;
  /**
   * the whole chain checked (from its signed prune checkpoint when retention cut it), calling onEntry
   * per entry, then against its newest signed checkpoint: a chain that ends before it or differs at
   * it is broken there (truncated or rewritten), as `proofgate audit verify` reports
   */
  verifyChain(orgId: string, onEntry: (e: AuditEntry) => void): Promise<{ entries: number; broken: Break | null }>;
}

const PAGE = 1000;

export function createAuditReader(store: Store, secret: string | null): AuditReader {
  const col = () => auditCollection(store);
  const needSecret = () => {
    if (!secret) throw new Error('audit entries cannot be verified without SVC_AUDIT_SECRET_KEY');
    return secret;
  };
  return {
    async head(orgId) {
      const last = await col().list({ prefix: `${orgId}/`, reverse: true, limit: 1 });
      return last.length ? Number(last[0].key.slice(last[0].key.lastIndexOf('/') + 1)) : null;
    },
    async count(orgId, sinceIso, cap = 50_000) {
      const counts = emptyCounts();
      let end: string | undefined;
      let scanned = 0;
      for (;;) {
        const page = await col().list({ prefix: `${orgId}/`, end, reverse: true, limit: PAGE });
        for (const { value } of page) {
          scanned++;
          try {
            assertEntry(value);
          } catch {
            continue;
          }
          if (value.timestamp < sinceIso) return { counts, truncated: false };
          counts[value.status]++;
        }
        if (page.length < PAGE) return { counts, truncated: false };
        if (scanned >= cap) return { counts, truncated: true };
        end = page[page.length - 1].key;
      }
    },
    async walk(orgId, limit) {
      const rows: AuditEntry[] = [];
      let start: string | undefined;
      while (rows.length < limit) {
        const page = await col().list({ prefix: `${orgId}/`, start, limit: PAGE });
        for (const e of page) rows.push(e.value as AuditEntry);
        if (page.length < PAGE) break;
        start = page[page.length - 1].key + '\u0000';
      }
      return rows.slice(0, limit);
    },
    async verifyEntry(orgId, seq) {
      return verifyStored(col(), needSecret(), orgId, seq, checkpointAnchor(store));
    },
    async verifyChain(orgId, onEntry) {
      const w = await walkChains(col(), needSecret(), { orgId, anchor: checkpointAnchor(store), onEntry });
      if (w.broken) return { entries: w.entries, broken: w.broken };
      // a chain whose tail was deleted still links: only its newest signed checkpoint tells (as in `audit verify`)
      const [p] = await checkAgainstCheckpoints(store, w, { orgId });
      return { entries: w.entries, broken: p ? { org_id: orgId, seq: p.seq, log_id: p.seq >= 0 ? logIdOf(orgId, p.seq) : null, reason: p.reason } : null };
    },
  };
}
