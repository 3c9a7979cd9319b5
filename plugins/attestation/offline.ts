import { decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { sha256Ref } from '../../core/json/canonical.js';
import { jwksKeySet } from '../../core/keys/jwks-keyset.js';
import { subjectOf } from './subject.js';
import { claimsShapeOk, MAX_TOKEN_BYTES, TOKEN_TYPE } from './token.js';
import type { AttestationClaims } from './types.js';

/**
 * Checking an attestation token without the service: ES256 signature against the service's JWKS
 * (`/.well-known/jwks.json`, fetched or saved), typ, expiry, the claim layout, that the kid belongs
 * to the issuer, and that `sub` binds the token's own query and proof hashes. What it cannot see
 * is revocation, which lives in the service's records (POST /attestation/verify reads it): the
 * result says so, and a caller that must honour revocations asks the service.
 */
export type OfflineVerifyResult =
  | { valid: true; verified: boolean; kid: string; claims: AttestationClaims; revocation: 'not checked offline' }
  | { valid: false; error: string; /** the JWKS could not be had: nothing was decided about the token */ jwksUnavailable?: true };

export interface OfflineVerifyOptions {
  /** the JWKS document itself (a saved /.well-known/jwks.json) */
  jwks?: JSONWebKeySet;
  /** or where to fetch it (key sets are cached per URL and refetched on an unknown kid) */
  jwksUrl?: string | URL;
  /** require this `iss` (e.g. did:svc:node:prod) */
  issuer?: string;
  /** require `svc.query_hash` to be the RFC 8785 SHA-256 of this value (what was evaluated) */
  query?: unknown;
  /** seconds of clock skew tolerated on exp/iat (default 0) */
  clockToleranceSeconds?: number;
  /** verification time (tests) */
  currentDate?: Date;
}

/** The A2A verdict's typ: named so that such a token is sent to the command that checks it. */
const A2A_VERDICT_TYP = 'svc-a2a-attestation+jwt';
const keySet = (o: OfflineVerifyOptions): JWTVerifyGetKey => jwksKeySet(o, 'verifyAttestationOffline');

const invalid = (error: string): OfflineVerifyResult => ({ valid: false, error });

export async function verifyAttestationOffline(token: unknown, o: OfflineVerifyOptions): Promise<OfflineVerifyResult> {
  if (typeof token !== 'string') return invalid('the token is not a string');
  if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) return invalid(`the token is longer than ${MAX_TOKEN_BYTES} bytes`);
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return invalid('not a compact JWS (three base64url parts)');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    return invalid('the protected header is not base64url JSON');
  }
  if (header.alg !== 'ES256') return invalid(`alg ${JSON.stringify(header.alg)} is not ES256`);
  if (header.typ !== TOKEN_TYPE) {
    const hint = header.typ === A2A_VERDICT_TYP ? ': this is an A2A verdict, check it with `proofgate a2a verify-verdict`' : '';
    return invalid(`typ ${JSON.stringify(header.typ)} is not ${TOKEN_TYPE}${hint}`);
  }
  if (typeof header.kid !== 'string') return invalid('the header names no kid');
  let payload: Record<string, unknown>;
  try {
    const r = await jwtVerify(token, keySet(o), {
      algorithms: ['ES256'],
      typ: TOKEN_TYPE,
      issuer: o.issuer,
      clockTolerance: o.clockToleranceSeconds ?? 0,
      currentDate: o.currentDate,
      requiredClaims: ['iss', 'sub', 'iat', 'exp', 'jti'],
    });
    payload = r.payload as Record<string, unknown>;
  } catch (err) {
    if (err instanceof errors.JWTExpired) return invalid('the token has expired');
    if (err instanceof errors.JWSSignatureVerificationFailed) return invalid('signature verification failed');
    if (err instanceof errors.JWKSNoMatchingKey) return invalid(`no key in the JWKS has kid ${JSON.stringify(header.kid)} (a token of a previous ephemeral key, or the wrong JWKS)`);
    if (err instanceof errors.JWTClaimValidationFailed) return invalid(`claim ${err.claim} fails: ${err.reason}`);
    if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError)) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      const where = o.jwksUrl ? ` from ${String(o.jwksUrl)}` : '';
      return { valid: false, jwksUnavailable: true, error: `the JWKS could not be had${where}: ${(err as Error).message}${cause ? ` (${cause})` : ''}` };
    }
    return invalid(err.message);
  }
  if (!claimsShapeOk(payload)) return invalid('the claims are not an attestation of version 1.0');
  // a key of the JWKS that is not the issuer's (the A2A key beside it) signs for nobody here
  if (!header.kid.startsWith(`${payload.iss}#`)) return invalid(`kid ${JSON.stringify(header.kid)} does not belong to the issuer ${payload.iss}`);
  if (payload.sub !== subjectOf(payload.svc.query_hash, payload.svc.proof_hash)) return invalid('sub does not bind the query and proof hashes');
  if (o.query !== undefined) {
    let want: string;
    try {
      want = sha256Ref(o.query);
    } catch {
      return invalid('the query has no canonical JSON form');
    }
    if (payload.svc.query_hash !== want) return invalid('svc.query_hash is not the hash of the given query');
  }
  const claims: AttestationClaims = {
    iss: payload.iss,
    sub: payload.sub,
    iat: payload.iat,
    exp: payload.exp,
    jti: payload.jti,
    svc: {
      version: payload.svc.version,
      result: { status: payload.svc.result.status, verified: payload.svc.result.verified, engine: payload.svc.result.engine, confidence: payload.svc.result.confidence },
      query_hash: payload.svc.query_hash,
      proof_hash: payload.svc.proof_hash,
    },
  };
  return { valid: true, verified: claims.svc.result.status === 'VERIFIED', kid: header.kid, claims, revocation: 'not checked offline' };
}
