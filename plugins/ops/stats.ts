import type { Store } from '../../core/store.js';
import { assertEntry, auditCollection, type AuditStatus } from '../audit/index.js';

/**
 * Figures read from the audit chains (the store is the source of truth across replicas; process
 * counters would only see this replica). The window scan walks newest-first and stops at the
 * window's start or after `cap` entries, so one busy tenant cannot make a metrics call unbounded.
 */
export type StatusCounts = Record<AuditStatus, number>;
export const emptyCounts = (): StatusCounts => ({ verified: 0, blocked: 0, unverifiable: 0, admin: 0, refused: 0 });

export interface OrgStats {
  /** entries ever appended (head seq + 1) */
  entries_total: number;
  window: StatusCounts;
  /** true when the window scan hit its cap before the window's start */
  window_truncated: boolean;
}

export async function orgStats(store: Store, orgId: string, sinceIso: string, cap = 50_000): Promise<OrgStats> {
  const col = auditCollection(store);
  const head = await col.list({ prefix: `${orgId}/`, reverse: true, limit: 1 });
  const total = head.length ? Number(head[0].key.slice(head[0].key.lastIndexOf('/') + 1)) + 1 : 0;
  const window = emptyCounts();
  let end: string | undefined;
  let scanned = 0;
  for (;;) {
    const page = await col.list({ prefix: `${orgId}/`, end, reverse: true, limit: 1000 });
    for (const { value } of page) {
      scanned++;
      try {
        assertEntry(value);
      } catch {
        continue;
      }
      if (value.timestamp < sinceIso) return { entries_total: total, window, window_truncated: false };
      window[value.status]++;
    }
    if (page.length < 1000) return { entries_total: total, window, window_truncated: false };
    if (scanned >= cap) return { entries_total: total, window, window_truncated: true };
    end = page[page.length - 1].key;
  }
}

export function sinceHours(hours: number, now = Date.now()): string {
  return new Date(now - hours * 3_600_000).toISOString();
}
