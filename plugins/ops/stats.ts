import type { App } from '../../core/types.js';
import { AUDIT_SERVICES, emptyCounts, type AuditReader, type StatusCounts } from '../audit/index.js';

/**
 * Figures read from the audit chains through the audit plugin's reader (the store is the source of
 * truth across replicas; process counters would only see this replica). The window scan walks
 * newest-first and stops at the window's start or after `cap` entries, so one busy tenant cannot
 * make a metrics call unbounded.
 */
export { emptyCounts, type StatusCounts };

export interface OrgStats {
  /** entries ever appended (head seq + 1) */
  entries_total: number;
  window: StatusCounts;
  /** true when the window scan hit its cap before the window's start */
  window_truncated: boolean;
}

/** the audit plugin's reader; without the audit plugin there are no chains to read */
export function auditReader(app: App): AuditReader | null {
  return app.service(AUDIT_SERVICES.reader) ?? null;
}

export async function orgStats(reader: AuditReader | null, orgId: string, sinceIso: string, cap = 50_000): Promise<OrgStats> {
  if (!reader) return { entries_total: 0, window: emptyCounts(), window_truncated: false };
  const head = await reader.head(orgId);
  const { counts, truncated } = await reader.count(orgId, sinceIso, cap);
  return { entries_total: head === null ? 0 : head + 1, window: counts, window_truncated: truncated };
}

export function sinceHours(hours: number, now = Date.now()): string {
  return new Date(now - hours * 3_600_000).toISOString();
}
