import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hmacSha256Hex } from '../../core/json/canonical.js';
import type { Checkpoint } from './checkpoint.js';
import type { AuditEntry } from './payload.js';

/**
 * The retention export file: what `proofgate audit verify --export FILE` needs to verify a pruned
 * prefix with no server and no store. JSON lines:
 *
 *   {"svc_audit_export": header}     org, seq range, the prune checkpoint the first entry links to
 *                                    (null at seq 0), and which HMAC key the entries need
 *   <entry> …                        the full stored entries, oldest first
 *   {"svc_audit_checkpoint": cp}     the signed prune checkpoint over the last entry's hash, with
 *                                    the signer's kid and public JWK
 *
 * The HMAC secret is never written: `hmac.key_id` is an HMAC of a fixed label under it, which
 * names the key (a verifier holding a key can tell whether it is that one) without revealing it.
 */
export const EXPORT_HEADER = 'svc_audit_export';
export const EXPORT_CHECKPOINT = 'svc_audit_checkpoint';
export const EXPORT_VERSION = 2;

export interface ExportHeader {
  version: number;
  org_id: string;
  first_seq: number;
  last_seq: number;
  created_at: string;
  /** the prune checkpoint at first_seq - 1 the first entry links to; null when first_seq is 0 */
  anchor: Checkpoint | null;
  hmac: { alg: 'HMAC-SHA256'; input: 'payload_hash'; key_id: string };
}

export const hmacKeyId = (secret: string) => `hk1:${hmacSha256Hex(secret, 'proofgate audit hmac key id').slice(0, 32)}`;

/** fsyncs directories, so the names created in them survive a power cut */
export function syncDirs(dirs: readonly string[]): void {
  for (const d of dirs) {
    const fd = openSync(d, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** `dir` and, when mkdir made it (`first`: the top directory it created), each new level and its parent */
function createdDirs(dir: string, first: string | undefined): string[] {
  const out = [dir];
  if (first === undefined) return out;
  for (let d = dir; d !== first && dirname(d) !== d; d = dirname(d)) out.push(dirname(d));
  out.push(dirname(first));
  return out;
}

/**
 * Writes the export of `entries` (one org, consecutive seqs) under its final name only once it is
 * whole and synced: written to a temporary name, fsynced, renamed, the directory fsynced (and any
 * directory made for it). A write the file system takes only in part (full disk, file-size limit)
 * throws and leaves no file; a re-run after a crash replaces the same range's file whole.
 */
export function writeExport(dir: string, secret: string, entries: readonly AuditEntry[], anchor: Checkpoint | null, cp: Checkpoint): string {
  const first = entries[0];
  const last = entries[entries.length - 1];
  const header: ExportHeader = {
    version: EXPORT_VERSION,
    org_id: first.org_id,
    first_seq: first.seq,
    last_seq: last.seq,
    created_at: cp.created_at,
    anchor,
    hmac: { alg: 'HMAC-SHA256', input: 'payload_hash', key_id: hmacKeyId(secret) },
  };
  const made = mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `audit-${first.org_id}-${String(first.seq).padStart(12, '0')}-${String(last.seq).padStart(12, '0')}.jsonl`;
  const file = join(dir, name);
  // replicas of a shared store may export the same range at once into one shared directory
  const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    // writeFileSync repeats short writes until all is written or one fails (full disk, size limit)
    const lines = [JSON.stringify({ [EXPORT_HEADER]: header }), ...entries.map((e) => JSON.stringify(e)), JSON.stringify({ [EXPORT_CHECKPOINT]: cp })];
    writeFileSync(fd, lines.join('\n') + '\n');
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // the write already failed: that error is the one to report
    }
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  // the name lives in the directory: until that is synced, a power cut after the delete could
  // leave the data synced but unreachable (and a new directory unreachable from its parent)
  syncDirs(createdDirs(dir, made));
  return file;
}
