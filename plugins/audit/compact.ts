import type { Codec, CollectionCodecs } from '../../core/store/store.js';
import { AUDIT_STATUSES, hasCurrentPayloadHash, logIdOf, payloadHashOf, type AuditEntry, type AuditStatus } from './payload.js';

/**
 * Stored layouts of audit entries (registered as the codec of `audit.entries`): an array instead
 * of an object, the SHA-256 references and the HMAC as 32 raw bytes instead of 71/64 hex
 * characters, the timestamp as epoch milliseconds, and no org_id / seq / log_id — the key
 * `<org>/<seq>` already names them.
 *  - layout 2, what is written: also no payload_hash — it is the hash of the entry's own fields
 *    (the current payload form), so the reader recomputes it — and status and method as small
 *    numbers. Only an entry whose payload_hash is exactly that hash is written so; verification is
 *    unchanged: the HMAC (over the payload hash) and the next entry's prev_hash still have to match
 *    the recomputed hash, so an edited field still breaks the entry's HMAC and the chain.
 *  - layout 1: entries of the previous release, and any entry whose payload_hash is not the current
 *    form's hash (a legacy entry, or one edited in place: the verifier must see that mismatch).
 * Readers get the same AuditEntry either way (payload hashes are computed over that, so the layout
 * is invisible to verification). Anything that does not round-trip exactly (a malformed or foreign
 * value, an entry stored under another key) is kept as it is, so the verifier still sees and
 * reports it; entries of older releases decode unchanged.
 */
const FULL = 1;
const LEAN = 2;
const REF = /^sha256:[0-9a-f]{64}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const FIELDS = 18;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const packRef = (s: string | null): string | Buffer | null => (s !== null && REF.test(s) ? Buffer.from(s.slice(7), 'hex') : s);
const unpackRef = (v: unknown): string | null => (v instanceof Uint8Array ? 'sha256:' + Buffer.from(v).toString('hex') : (v as string | null));
const unpackHex = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v);

function position(key: string): { org: string; seq: number } {
  const slash = key.lastIndexOf('/');
  return { org: key.slice(0, slash), seq: Number(key.slice(slash + 1)) };
}

/** null unless `e` round-trips exactly through the array layouts */
function packable(e: AuditEntry, key: string): { ms: number } | null {
  // no schema check here (the verifier reports malformed entries); only what an exact round trip
  // needs: the 18 fields, the position the key names, an ISO timestamp, hex HMAC, no binary values
  if (!e || typeof e !== 'object' || Array.isArray(e)) return null;
  for (const k in e) if ((e as unknown as Record<string, unknown>)[k] instanceof Uint8Array) return null;
  const { org, seq } = position(key);
  if (e.org_id !== org || e.seq !== seq || e.log_id !== logIdOf(org, seq) || !HEX64.test(e.hmac) || Object.keys(e).length !== FIELDS) return null;
  if (typeof e.timestamp !== 'string' || typeof e.payload_hash !== 'string') return null;
  const ms = Date.parse(e.timestamp);
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== e.timestamp) return null;
  return { ms };
}

export const auditCodec: Codec<AuditEntry> = {
  encode(e, key) {
    const p = packable(e, key);
    if (!p) return e;
    const status = AUDIT_STATUSES.indexOf(e.status);
    // lean: the payload hash is the one a reader recomputes, and method and status are table indexes
    const lean = status >= 0 && hasCurrentPayloadHash(e);
    const method = METHODS.indexOf(e.method);
    const row: unknown[] = [
      lean ? LEAN : FULL,
      p.ms,
      e.route,
      lean && method >= 0 ? method : e.method,
      e.key_id,
      e.user_id,
      packRef(e.request_hash),
      lean ? status : e.status,
      e.engine,
      e.http_status,
      packRef(e.proof_ref),
      e.constraint_id,
      e.raw_llm_output,
      packRef(e.prev_hash),
    ];
    if (!lean) row.push(packRef(e.payload_hash));
    row.push(Buffer.from(e.hmac, 'hex'));
    return row;
  },
  decode(v, key) {
    const lean = Array.isArray(v) && v[0] === LEAN && v.length === 15;
    if (!lean && !(Array.isArray(v) && v[0] === FULL && v.length === 16)) return v as AuditEntry;
    const { org, seq } = position(key);
    const a = v as unknown[];
    const e: AuditEntry = {
      log_id: logIdOf(org, seq),
      org_id: org,
      seq,
      timestamp: new Date(a[1] as number).toISOString(),
      route: a[2] as string,
      method: (lean && typeof a[3] === 'number' ? METHODS[a[3]] : a[3]) as string,
      key_id: a[4] as string | null,
      user_id: a[5] as string | null,
      request_hash: unpackRef(a[6]),
      status: (lean ? AUDIT_STATUSES[a[7] as number] : a[7]) as AuditStatus,
      engine: a[8] as string | null,
      http_status: a[9] as number,
      proof_ref: unpackRef(a[10]),
      constraint_id: a[11] as string | null,
      raw_llm_output: a[12] as string | null,
      prev_hash: unpackRef(a[13]),
      payload_hash: lean ? '' : (unpackRef(a[14]) as string),
      hmac: unpackHex(lean ? a[14] : a[15]) as string,
    };
    if (lean) e.payload_hash = payloadHashOf(e);
    return e;
  },
};

/** The collection's name lives beside its codec, which the plugin's manifest declares (`collections`). */
export const AUDIT_COLLECTION = 'audit.entries';
/** what the audit plugin declares, and what a tool opening a store to read the chains passes */
export const AUDIT_CODECS: CollectionCodecs = { [AUDIT_COLLECTION]: auditCodec as Codec };
