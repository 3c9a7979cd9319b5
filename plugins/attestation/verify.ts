import type { KeyObject } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { Collection } from '../../core/store/store.js';
import { subjectOf } from './subject.js';
import { claimsShapeOk, MAX_TOKEN_BYTES, SVC_VERSION, TOKEN_TYPE } from './token.js';
import type { AttestationClaims, AttestationRecord, RejectReason, StoredStatus, VerifyOutcome } from './types.js';

export { MAX_TOKEN_BYTES } from './token.js';

export interface VerifierDeps {
  /** public keys by kid: only keys this service signs with */
  keys: ReadonlyMap<string, KeyObject>;
  trustedIssuers: readonly string[];
  records: Collection<AttestationRecord>;
  /** retired keys: kid → epoch seconds it stopped signing; a token it signs must be older */
  signedBefore?: ReadonlyMap<string, number>;
  now?: () => number;
}

const fail = (reason: RejectReason): VerifyOutcome => ({ ok: false, reason });

function joseReason(err: unknown): RejectReason {
  switch ((err as { code?: string })?.code) {
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'bad_signature';
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return 'not_yet_valid';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'unsupported_alg';
    default:
      return 'malformed';
  }
}

/**
 * Builds `verify(token)`. Order matters: cheap structural checks, then the signature (jose), and
 * only then the issuer trust list, so an unsigned or forged token never reaches a policy decision
 * and the list cannot be probed with unsigned tokens. Revocation is read from the store; a token
 * with a valid signature but no stored record is refused (fail closed: it cannot be revoked).
 */
export function createVerifier(deps: VerifierDeps) {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  return async function verify(token: unknown): Promise<VerifyOutcome> {
    if (typeof token !== 'string') return fail('not_a_string');
    if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) return fail('oversized');
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) return fail('malformed');
    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(token) as Record<string, unknown>;
    } catch {
      return fail('malformed');
    }
    if (header.alg !== 'ES256') return fail('unsupported_alg');
    if (header.typ !== TOKEN_TYPE) return fail('wrong_typ');
    const key = typeof header.kid === 'string' ? deps.keys.get(header.kid) : undefined;
    if (!key) return fail('unknown_key');
    let payload: Record<string, unknown>;
    try {
      const res = await jwtVerify(token, key, { algorithms: ['ES256'], typ: TOKEN_TYPE, currentDate: new Date(now() * 1000) });
      payload = res.payload as Record<string, unknown>;
    } catch (err) {
      return fail(joseReason(err));
    }
    // signature is good from here on: policy checks
    if (!claimsShapeOk(payload)) return fail('malformed_claims');
    if (payload.exp <= now()) return fail('expired');
    // a retired key signs nothing after its retirement: a newer token under it is a forgery, whoever holds the key now
    const retiredAt = deps.signedBefore?.get(header.kid as string);
    if (retiredAt !== undefined && payload.iat > retiredAt) return fail('unknown_key');
    if (!deps.trustedIssuers.includes(payload.iss)) return fail('untrusted_issuer');
    if (!(header.kid as string).startsWith(`${payload.iss}#`)) return fail('issuer_key_mismatch');
    if (payload.sub !== subjectOf(payload.svc.query_hash, payload.svc.proof_hash)) return fail('sub_mismatch');
    const record = await deps.records.get(payload.jti);
    if (!record || record.kid !== header.kid || record.sub !== payload.sub) return fail('unknown_attestation');
    if (record.revoked_at !== null) return fail('revoked');
    const claims: AttestationClaims = {
      iss: payload.iss,
      sub: payload.sub,
      iat: payload.iat,
      exp: payload.exp,
      jti: payload.jti,
      // rebuilt field by field: nothing beyond the documented claims leaves the verifier
      svc: {
        version: SVC_VERSION,
        result: {
          status: payload.svc.result.status,
          verified: payload.svc.result.verified,
          engine: payload.svc.result.engine,
          confidence: payload.svc.result.confidence,
        },
        query_hash: payload.svc.query_hash,
        proof_hash: payload.svc.proof_hash,
      },
    };
    return { ok: true, claims, header: { alg: 'ES256', typ: TOKEN_TYPE, kid: header.kid as string }, status: 'VALID' };
  };
}

/**
 * Whether a record was signed by a key this service accepts now: its kid must name an accepted key
 * and its thumbprint must be that key's (`accepted`: kid → RFC 7638 thumbprint). A record without
 * a thumbprint (earlier releases) names no key material and is not accepted (fail closed).
 */
export function keyAccepted(r: Pick<AttestationRecord, 'kid' | 'jkt'>, accepted: ReadonlyMap<string, string>): boolean {
  return typeof r.jkt === 'string' && accepted.get(r.kid) === r.jkt;
}

/**
 * Stored status of a record at `now` (epoch seconds). Revocation and expiry are facts whatever the
 * key; VALID also needs the signing key to be one the service still accepts, since a token whose
 * signature cannot be checked here is not one the service can vouch for (UNVERIFIABLE).
 */
export function recordStatus(r: AttestationRecord, now: number, accepted: ReadonlyMap<string, string>): StoredStatus {
  if (r.revoked_at !== null) return 'REVOKED';
  if (now >= r.exp) return 'EXPIRED';
  return keyAccepted(r, accepted) ? 'VALID' : 'UNVERIFIABLE';
}
