import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { safeEqual } from '../../core/json/canonical.js';
import { checkCheckpoint, type Checkpoint } from './checkpoint.js';
import { EXPORT_CHECKPOINT, EXPORT_HEADER, EXPORT_VERSION, hmacKeyId, type ExportHeader } from './export-file.js';
import { assertEntry, type AuditEntry } from './payload.js';
import { hmacCheck, linkCheck, payloadCheck } from './verify.js';

/**
 * Offline verification of one retention export file (export-file.ts), with no server and no
 * store. Without the HMAC key it proves that the entries are, byte for byte and in order, the ones
 * whose last hash the prune checkpoint signs: each payload hash covers its entry's fields and its
 * predecessor's hash, the first links to the anchor checkpoint (or is seq 0), the last is the
 * signed head. Whose signature that is only a pinned key says. With the key it also proves that
 * the secret holder wrote each entry.
 */
export interface ExportVerdict {
  /** 0 OK, 1 BROKEN, 2 cannot verify (unreadable, not an export, wrong key) */
  code: 0 | 1 | 2;
  message: string;
}

const SEQ = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function headerProblem(h: ExportHeader): string | null {
  if (!h || typeof h !== 'object') return 'header is not an object';
  if (h.version !== EXPORT_VERSION) return `unsupported export version ${JSON.stringify(h.version)}`;
  if (typeof h.org_id !== 'string' || !SEQ(h.first_seq) || !SEQ(h.last_seq) || h.last_seq < h.first_seq) return 'header names no organisation and seq range';
  if (!h.hmac || typeof h.hmac.key_id !== 'string') return 'header names no HMAC key';
  return null;
}

/**
 * The anchor must be a prune checkpoint (the point retention cut the chain at). The closing one is
 * the prune checkpoint of a retention export, or the `export` checkpoint GET /audit/export signed.
 */
async function checkpointAt(v: unknown, org: string, seq: number, pins: readonly string[] | undefined, what: string, reasons: readonly string[] = ['prune']): Promise<{ cp: Checkpoint } | { problem: string }> {
  const r = await checkCheckpoint(v, pins);
  if (!r.ok) return { problem: `${what}: ${r.reason}` };
  if (r.cp.org_id !== org || r.cp.seq !== seq || !reasons.includes(r.cp.reason)) return { problem: `${what} is not the ${reasons.join(' or ')} checkpoint of ${org} at seq ${seq}` };
  return { cp: r.cp };
}

export async function verifyExportFile(path: string, o: { hmacKey?: string; pins?: readonly string[] } = {}): Promise<ExportVerdict> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let header: ExportHeader | null = null;
  let org = '';
  let prev: AuditEntry | undefined;
  let expected = 0;
  let last: AuditEntry | null = null;
  let trailer: unknown;
  let n = 0;
  const broken = (seq: number, why: string): ExportVerdict => ({ code: 1, message: `BROKEN org=${org || '-'} seq=${seq} line=${n}: ${why}` });
  try {
    for await (const line of lines) {
      n++;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        if (!header) return { code: 2, message: `${path} is not an audit export: line 1 is not JSON` };
        return broken(expected, 'line is not JSON');
      }
      if (!header) {
        const h = (v as Record<string, unknown> | null)?.[EXPORT_HEADER] as ExportHeader | undefined;
        if (!h) return { code: 2, message: `${path} is not an audit export of this release: line 1 has no ${EXPORT_HEADER} header (files written before it hold bare entries, which carry no checkpoint)` };
        const p = headerProblem(h);
        if (p) return { code: 2, message: `${path}: ${p}` };
        header = h;
        org = h.org_id;
        expected = h.first_seq;
        if (o.hmacKey !== undefined && !safeEqual(hmacKeyId(o.hmacKey), h.hmac.key_id)) {
          return { code: 2, message: `the key in --hmac-key-file is not the one this export names (${h.hmac.key_id}): HMACs cannot be checked with it` };
        }
        if (h.first_seq === 0) {
          if (h.anchor !== null) return broken(0, 'an export from seq 0 has an anchor checkpoint');
        } else {
          const a = await checkpointAt(h.anchor, org, h.first_seq - 1, o.pins, 'the anchor checkpoint');
          if ('problem' in a) return broken(h.first_seq, a.problem);
          prev = { payload_hash: a.cp.head_hash } as AuditEntry;
        }
        continue;
      }
      if (trailer !== undefined) return broken(expected, 'lines follow the checkpoint');
      const cp = (v as Record<string, unknown> | null)?.[EXPORT_CHECKPOINT];
      if (cp !== undefined) {
        trailer = cp;
        continue;
      }
      try {
        assertEntry(v);
      } catch (err) {
        return broken(expected, (err as Error).message);
      }
      if (v.seq !== expected) return broken(expected, `entry ${expected} is missing (found seq ${v.seq})`);
      if (!payloadCheck(v).ok) return broken(v.seq, 'payload hash mismatch');
      if (o.hmacKey !== undefined && !hmacCheck(o.hmacKey, v)) return broken(v.seq, 'HMAC mismatch');
      const link = linkCheck(org, v.seq, v, prev);
      if (!link.ok) return broken(v.seq, link.detail ?? 'chain linkage broken');
      prev = v;
      last = v;
      expected++;
    }
  } catch (err) {
    return { code: 2, message: `cannot read ${path}: ${(err as Error).message}` };
  }
  if (!header) return { code: 2, message: `${path} is not an audit export: it is empty` };
  if (!last) return broken(header.first_seq, 'the export holds no entries');
  if (last.seq !== header.last_seq) return broken(last.seq + 1, `the export ends at seq ${last.seq} but its header names seq ${header.last_seq}`);
  if (trailer === undefined) return broken(last.seq, 'the export ends without its closing checkpoint (cut short?)');
  const c = await checkpointAt(trailer, org, last.seq, o.pins, 'the closing checkpoint', ['prune', 'export']);
  if ('problem' in c) return broken(last.seq, c.problem);
  if (!safeEqual(c.cp.head_hash, last.payload_hash)) return broken(last.seq, `the ${c.cp.reason} checkpoint signs another hash than the last entry`);
  const tp = await calculateJwkThumbprint(c.cp.public_jwk as JWK, 'sha256');
  const count = last.seq - header.first_seq + 1;
  return {
    code: 0,
    message:
      `OK: ${count} entries of org=${org} (seq ${header.first_seq}..${last.seq}) verified: hash chain${header.first_seq > 0 ? ' from the anchor checkpoint' : ' from seq 0'}, ` +
      `${c.cp.reason} checkpoint of ${c.cp.created_at} signed by ${c.cp.kid} (key ${tp}${o.pins?.length ? ', pinned' : ', NOT pinned: pass --pin to trust it'}); ` +
      (o.hmacKey !== undefined ? 'HMACs verified' : `HMACs not checked (they need the key ${header.hmac.key_id}: --hmac-key-file)`),
  };
}
