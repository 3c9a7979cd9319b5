import { registerCodec, type Codec } from '../../core/store.js';
import { logIdOf, type AuditEntry } from './payload.js';

/**
 * Stored layout of audit entries (registered as the codec of `audit.entries`): an array instead
 * of an object, the SHA-256 references and the HMAC as 32 raw bytes instead of 71/64 hex
 * characters, the timestamp as epoch milliseconds, and no org_id / seq / log_id — the key
 * `<org>/<seq>` already names them. Readers get the same AuditEntry as before (payload hashes are
 * computed over that, so the layout is invisible to verification). Anything that does not round-trip
 * exactly (a malformed or foreign value, an entry stored under another key) is kept as it is, so
 * the verifier still sees and reports it; entries of older releases decode unchanged.
 */
const LAYOUT = 1;
const REF = /^sha256:[0-9a-f]{64}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const FIELDS = 18;

const packRef = (s: string | null): string | Buffer | null => (s !== null && REF.test(s) ? Buffer.from(s.slice(7), 'hex') : s);
const unpackRef = (v: unknown): string | null => (v instanceof Uint8Array ? 'sha256:' + Buffer.from(v).toString('hex') : (v as string | null));

export const auditCodec: Codec<AuditEntry> = {
  encode(e, key) {
    // no schema check here (the verifier reports malformed entries); only what an exact round trip
    // needs: the 18 fields, the position the key names, an ISO timestamp, hex HMAC, no binary values
    if (!e || typeof e !== 'object' || Array.isArray(e)) return e;
    for (const k in e) if ((e as unknown as Record<string, unknown>)[k] instanceof Uint8Array) return e;
    const slash = key.lastIndexOf('/');
    const org = key.slice(0, slash);
    const seq = Number(key.slice(slash + 1));
    if (e.org_id !== org || e.seq !== seq || e.log_id !== logIdOf(org, seq) || !HEX64.test(e.hmac) || Object.keys(e).length !== FIELDS) return e;
    if (typeof e.timestamp !== 'string' || typeof e.payload_hash !== 'string') return e;
    const ms = Date.parse(e.timestamp);
    if (!Number.isFinite(ms) || new Date(ms).toISOString() !== e.timestamp) return e;
    return [
      LAYOUT,
      ms,
      e.route,
      e.method,
      e.key_id,
      e.user_id,
      packRef(e.request_hash),
      e.status,
      e.engine,
      e.http_status,
      packRef(e.proof_ref),
      e.constraint_id,
      e.raw_llm_output,
      packRef(e.prev_hash),
      packRef(e.payload_hash),
      Buffer.from(e.hmac, 'hex'),
    ];
  },
  decode(v, key) {
    if (!Array.isArray(v) || v[0] !== LAYOUT || v.length !== 16) return v as AuditEntry;
    const slash = key.lastIndexOf('/');
    const org = key.slice(0, slash);
    const seq = Number(key.slice(slash + 1));
    return {
      log_id: logIdOf(org, seq),
      org_id: org,
      seq,
      timestamp: new Date(v[1] as number).toISOString(),
      route: v[2],
      method: v[3],
      key_id: v[4],
      user_id: v[5],
      request_hash: unpackRef(v[6]),
      status: v[7],
      engine: v[8],
      http_status: v[9],
      proof_ref: unpackRef(v[10]),
      constraint_id: v[11],
      raw_llm_output: v[12],
      prev_hash: unpackRef(v[13]),
      payload_hash: unpackRef(v[14]) as string,
      hmac: v[15] instanceof Uint8Array ? Buffer.from(v[15]).toString('hex') : v[15],
    };
  },
};

// the literal, not AUDIT_COLLECTION: payload.ts imports this module for its side effect
registerCodec('audit.entries', auditCodec);
