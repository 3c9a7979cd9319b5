import { decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { sha256Ref } from '../../core/json/canonical.js';
import { jwksKeySet } from '../../core/keys/jwks-keyset.js';
import { CLAIMS_VERSION, JWT_TYP, type A2AClaims } from './signer.js';

/**
 * How a receiving agent checks a verdict JWT before acting on a forwarded message: ES256 signature
 * against the gateway's JWKS, `typ`, expiry, and — the part a generic JWT library cannot do — that
 * `sub` is the RFC 8785 SHA-256 of the payload it actually received. jose does the JOSE work here
 * (foreign tokens are its job); the gateway signs with node:crypto on its hot path.
 */
export type VerifyResult = { valid: true; claims: A2AClaims } | { valid: false; error: string };

export interface VerifyOptions {
  /** the JWKS document itself (e.g. fetched once and cached by the caller) */
  jwks?: JSONWebKeySet;
  /** or where to fetch it; key sets are cached per URL and refetched on an unknown kid */
  jwksUrl?: string | URL;
  /** the payload object exactly as the receiver got it */
  payload: unknown;
  /** require this `iss` (e.g. did:svc:a2a:prod) */
  issuer?: string;
  /** seconds of clock skew tolerated on exp/iat (default 0) */
  clockToleranceSeconds?: number;
  /** verification time (tests) */
  currentDate?: Date;
}

export const EXPIRED = 'Attestation has expired';
const ATTESTATION_TYP = 'svc-attestation+jwt';
const keySet = (o: VerifyOptions): JWTVerifyGetKey => jwksKeySet(o, 'verifyVerdict');

const invalid = (detail: string): VerifyResult => ({ valid: false, error: `Invalid token: ${detail}` });

export async function verifyVerdict(token: string, o: VerifyOptions): Promise<VerifyResult> {
  if (typeof token !== 'string' || token.split('.').length !== 3) return invalid('not a compact JWS');
  const getKey = keySet(o);
  let claims: A2AClaims;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'ES256') return invalid(`alg ${String(header.alg)} is not ES256`);
    // the other token the service signs: say which check it needs instead of a bare typ mismatch
    if (header.typ === ATTESTATION_TYP) return invalid(`typ ${ATTESTATION_TYP} is an attestation token, not an A2A verdict: check it with \`proofgate attestation verify\` (or verifyAttestationOffline)`);
    const r = await jwtVerify(token, getKey, {
      algorithms: ['ES256'],
      typ: JWT_TYP,
      issuer: o.issuer,
      clockTolerance: o.clockToleranceSeconds ?? 0,
      currentDate: o.currentDate,
      requiredClaims: ['iss', 'sub', 'iat', 'exp', 'jti'],
    });
    claims = r.payload as unknown as A2AClaims;
    const kid = r.protectedHeader.kid;
    if (typeof kid !== 'string' || !kid.startsWith(`${claims.iss}#key-`)) return invalid('kid does not belong to the issuer');
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { valid: false, error: EXPIRED };
    if (err instanceof errors.JWSSignatureVerificationFailed) return invalid('signature verification failed');
    if (err instanceof errors.JWKSNoMatchingKey) return invalid('no key in the JWKS matches the token');
    if (err instanceof errors.JOSEError) return invalid(err.message);
    return invalid('the JWKS could not be fetched');
  }
  const a = claims.svc_a2a;
  if (!a || typeof a !== 'object' || a.version !== CLAIMS_VERSION) return invalid('svc_a2a claim is missing or of another version');
  let expected: string;
  try {
    expected = sha256Ref(o.payload);
  } catch {
    return invalid('payload has no canonical JSON form');
  }
  if (claims.sub !== expected) return invalid('payload hash does not match sub');
  return { valid: true, claims };
}
