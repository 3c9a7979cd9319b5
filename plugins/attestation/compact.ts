import { registerCodec, type Codec } from '../../core/store.js';
import type { AttestationRecord } from './types.js';

/**
 * Stored layout of attestation records (codec of the `attestations` collection): an array, the
 * three SHA-256 references as 32 raw bytes, no `id` (it is the key). Readers get the same
 * AttestationRecord; a value that would not round-trip exactly is stored as it is.
 */
const LAYOUT = 1;
const REF = /^sha256:[0-9a-f]{64}$/;
const ref = (s: string) => Buffer.from(s.slice(7), 'hex');
const unref = (v: unknown) => (v instanceof Uint8Array ? 'sha256:' + Buffer.from(v).toString('hex') : (v as string));

function compactable(r: AttestationRecord, key: string): boolean {
  if (!r || typeof r !== 'object' || Object.keys(r).length !== 12 || r.id !== key) return false;
  if (![r.sub, r.query_hash, r.proof_hash].every((h) => typeof h === 'string' && REF.test(h))) return false;
  const res = r.result as unknown as Record<string, unknown>;
  return !!res && typeof res === 'object' && Object.keys(res).length === 4 && ['status', 'verified', 'engine', 'confidence'].every((k) => k in res);
}

export const attestationCodec: Codec<AttestationRecord> = {
  encode(r, key) {
    if (!compactable(r, key)) return r;
    const x = r.result;
    return [LAYOUT, r.org_id, r.iss, r.kid, ref(r.sub), r.iat, r.exp, x.status, x.verified, x.engine, x.confidence, ref(r.query_hash), ref(r.proof_hash), r.revoked_at, r.revoked_by];
  },
  decode(v, key) {
    if (!Array.isArray(v) || v[0] !== LAYOUT || v.length !== 15) return v as AttestationRecord;
    return {
      id: key,
      org_id: v[1],
      iss: v[2],
      kid: v[3],
      sub: unref(v[4]),
      iat: v[5],
      exp: v[6],
      result: { status: v[7], verified: v[8], engine: v[9], confidence: v[10] },
      query_hash: unref(v[11]),
      proof_hash: unref(v[12]),
      revoked_at: v[13],
      revoked_by: v[14],
    };
  },
};

// the literal, not RECORDS_COLLECTION: index.ts imports this module for its side effect
registerCodec('attestations', attestationCodec);
