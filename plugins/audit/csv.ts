import { stringify } from 'csv-stringify/sync';
import type { AuditEntry } from './payload.js';

/**
 * CSV of audit entries. Spreadsheet programs execute cells starting with = + - @ (and tab or CR,
 * which some of them strip first), so such cells get a leading apostrophe (CSV injection).
 */
export const CSV_COLUMNS = [
  'log_id',
  'org_id',
  'seq',
  'timestamp',
  'route',
  'method',
  'key_id',
  'user_id',
  'status',
  'engine',
  'http_status',
  'constraint_id',
  'proof_ref',
  'request_hash',
  'payload_hash',
  'prev_hash',
  'hmac',
] as const;

export function neutralizeCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

export function entriesToCsv(entries: readonly AuditEntry[]): string {
  const rows = entries.map((e) => CSV_COLUMNS.map((c) => neutralizeCell(e[c])));
  return stringify(rows, { header: true, columns: [...CSV_COLUMNS], record_delimiter: 'windows' });
}

export function csvReply(body: string, filename: string) {
  return {
    body,
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${filename}"` },
  };
}
