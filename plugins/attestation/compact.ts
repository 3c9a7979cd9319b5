import type { Codec, CollectionCodecs } from '../../core/store/store.js';
import { hasOwnSubject, subjectOf } from './subject.js';
import type { AttestationRecord } from './types.js';

/**
 * Stored layouts of attestation records (codec of the `attestations` collection), all arrays with
 * the SHA-256 references as 32 raw bytes and no `id` (it is the key):
 *  - layout 3, what is written: layout 2 plus the signing key's thumbprint (`jkt`, 32 raw bytes);
 *  - layout 2, from earlier releases (no `jkt`): nothing a reader can recompute — no `sub` (the
 *    hash of query_hash and proof_hash), `kid` as its fragment when it is `<iss>#…`, `exp` as
 *    seconds after `iat`, `result.status` null for VERIFIED (the only status issued);
 *  - layout 1, for a record whose `sub` is not that hash (and from earlier releases): every field,
 *    then the thumbprint's 32 bytes when the record has one.
 * Readers get the same AttestationRecord either way (GET /attestation/{id}, revocation checks); a
 * value that would not round-trip exactly is stored as it is.
 */
const FULL = 1;
const LEAN = 2;
const LEAN_KEYED = 3;
const JKT = /^[A-Za-z0-9_-]{43}$/;
const REF = /^sha256:[0-9a-f]{64}$/;
const ref = (s: string) => Buffer.from(s.slice(7), 'hex');
const unref = (v: unknown) => (v instanceof Uint8Array ? 'sha256:' + Buffer.from(v).toString('hex') : (v as string));

function compactable(r: AttestationRecord, key: string): boolean {
  if (!r || typeof r !== 'object' || r.id !== key) return false;
  const n = Object.keys(r).length;
  // a thumbprint is stored as its 32 bytes only when they give the same text back
  const keyed = typeof r.jkt === 'string' && JKT.test(r.jkt) && Buffer.from(r.jkt, 'base64url').toString('base64url') === r.jkt;
  if (n !== ('jkt' in r ? (keyed ? 13 : -1) : 12)) return false;
  if (![r.sub, r.query_hash, r.proof_hash].every((h) => typeof h === 'string' && REF.test(h))) return false;
  const res = r.result as unknown as Record<string, unknown>;
  return !!res && typeof res === 'object' && Object.keys(res).length === 4 && ['status', 'verified', 'engine', 'confidence'].every((k) => k in res);
}

/** the kid as stored in layout 2: its fragment when it is `<iss>#…`; null when it cannot be told apart from one */
function kidOf(r: AttestationRecord): string | null {
  if (typeof r.kid !== 'string' || typeof r.iss !== 'string') return null;
  if (r.kid.startsWith(r.iss + '#')) return r.kid.slice(r.iss.length);
  return r.kid.startsWith('#') ? null : r.kid;
}

function lean(r: AttestationRecord): unknown[] | null {
  const kid = kidOf(r);
  const life = r.exp - r.iat;
  if (kid === null || !Number.isSafeInteger(r.iat) || !Number.isSafeInteger(life) || life < 0) return null;
  if (typeof r.result.status !== 'string' || !hasOwnSubject(r)) return null;
  const x = r.result;
  const status = x.status === 'VERIFIED' ? null : x.status;
  const fields = [r.org_id, r.iss, kid, r.iat, life, status, x.verified, x.engine, x.confidence, ref(r.query_hash), ref(r.proof_hash), r.revoked_at, r.revoked_by];
  return r.jkt === undefined ? [LEAN, ...fields] : [LEAN_KEYED, ...fields, Buffer.from(r.jkt, 'base64url')];
}

export const attestationCodec: Codec<AttestationRecord> = {
  encode(r, key) {
    if (!compactable(r, key)) return r;
    const l = lean(r);
    if (l) return l;
    const x = r.result;
    const full = [FULL, r.org_id, r.iss, r.kid, ref(r.sub), r.iat, r.exp, x.status, x.verified, x.engine, x.confidence, ref(r.query_hash), ref(r.proof_hash), r.revoked_at, r.revoked_by];
    return r.jkt === undefined ? full : [...full, Buffer.from(r.jkt, 'base64url')];
  },
  decode(v, key) {
    if (Array.isArray(v) && ((v[0] === LEAN && v.length === 14) || (v[0] === LEAN_KEYED && v.length === 15))) {
      const query_hash = unref(v[10]);
      const proof_hash = unref(v[11]);
      const rec: AttestationRecord = {
        id: key,
        org_id: v[1],
        iss: v[2],
        kid: typeof v[3] === 'string' && v[3].startsWith('#') ? v[2] + v[3] : v[3],
        sub: subjectOf(query_hash, proof_hash),
        iat: v[4],
        exp: v[4] + v[5],
        result: { status: v[6] ?? 'VERIFIED', verified: v[7], engine: v[8], confidence: v[9] },
        query_hash,
        proof_hash,
        revoked_at: v[12],
        revoked_by: v[13],
      };
      if (v[0] === LEAN_KEYED) rec.jkt = Buffer.from(v[14] as Uint8Array).toString('base64url');
      return rec;
    }
    if (!Array.isArray(v) || v[0] !== FULL || (v.length !== 15 && v.length !== 16)) return v as AttestationRecord;
    const rec: AttestationRecord = {
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
    if (v.length === 16) rec.jkt = Buffer.from(v[15] as Uint8Array).toString('base64url');
    return rec;
  },
};

/** the plugin's manifest declares it (`collections`); the literal, as index.ts imports this module */
export const ATTESTATION_CODECS: CollectionCodecs = { attestations: attestationCodec as Codec };
