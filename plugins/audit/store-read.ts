import type { Store } from '../../core/store/store.js';
import { assertEntry, entryKey, parseLogId, type AuditEntry, type AuditStatus } from './payload.js';
import { AUDIT_COLLECTION } from './compact.js';

/** Read side of the audit chains: scoped to one organisation, newest first. */
export function auditCollection(store: Store) {
  return store.collection<unknown>(AUDIT_COLLECTION);
}

/** The entry named by `logId` if it belongs to `orgId` (another organisation's id reads as absent → 404). */
export async function readEntry(store: Store, orgId: string, logId: string): Promise<unknown> {
  const at = parseLogId(logId);
  if (!at || at.orgId !== orgId) return undefined;
  return auditCollection(store).get(entryKey(orgId, at.seq));
}

export interface Page {
  entries: AuditEntry[];
  /**
   * where the next page starts (exclusive) when more may follow: the oldest entry returned, or, when
   * a status filter stopped at its scan cap, the oldest entry it scanned (the page may then be short)
   */
  next: number | null;
}

/**
 * Newest-first page of an organisation's entries, optionally filtered by status and starting below
 * `beforeSeq`. A status filter scans at most `scanCap` entries so a rare status cannot make one
 * request walk a whole chain; the page then ends where the scan stopped, with a cursor from there,
 * so a caller paging on misses nothing. Malformed entries are skipped here (the verifier reports them).
 */
export async function newestEntries(
  store: Store,
  orgId: string,
  o: { limit: number; status?: AuditStatus; beforeSeq?: number; scanCap?: number },
): Promise<Page> {
  const col = auditCollection(store);
  const out: AuditEntry[] = [];
  let end = o.beforeSeq !== undefined ? entryKey(orgId, o.beforeSeq) : undefined;
  let scanned = 0;
  const cap = o.scanCap ?? 10_000;
  let lastSeq: number | null = null;
  const want = o.status ? 500 : o.limit + 1;
  for (;;) {
    const batch = await col.list({ prefix: `${orgId}/`, end, reverse: true, limit: want });
    for (const { key, value } of batch) {
      scanned++;
      const seq = Number(key.slice(key.lastIndexOf('/') + 1));
      try {
        assertEntry(value);
      } catch {
        continue;
      }
      if (o.status && value.status !== o.status) continue;
      if (out.length === o.limit) return { entries: out, next: lastSeq };
      out.push(value);
      lastSeq = seq;
    }
    // a short batch is the chain's start (a list returns its whole limit while entries remain)
    if (batch.length < want) return { entries: out, next: null };
    end = batch[batch.length - 1].key;
    if (scanned >= cap) return { entries: out, next: Number(end.slice(end.lastIndexOf('/') + 1)) };
  }
}
