import { createHmac, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { sha256Ref } from '../../../core/json/canonical.js';
import { subjectOf } from '../../../plugins/attestation/issue.js';
import type { AttestationRecord } from '../../../plugins/attestation/types.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function claimsFor(o: { iss?: string; iat?: number; exp?: number; jti?: string; query?: unknown; proof_ref: string; status?: string }) {
  const iat = o.iat ?? Math.floor(Date.now() / 1000);
  const query_hash = sha256Ref(o.query ?? '2+2=4');
  return {
    iss: o.iss ?? 'did:svc:node:staging',
    sub: subjectOf(query_hash, o.proof_ref),
    iat,
    exp: o.exp ?? iat + 3600,
    jti: o.jti ?? `att_forged_${Math.random().toString(36).slice(2)}`,
    svc: { version: '1.0', result: { status: o.status ?? 'VERIFIED', verified: true, engine: 'math', confidence: 1 }, query_hash, proof_hash: o.proof_ref },
  };
}

/** An ES256 JWS over arbitrary header and claims, signed with `key` (a KeyObject or a PKCS#8 PEM). */
export function es256(key: KeyObject | string, header: Record<string, unknown>, claims: unknown): string {
  const k = typeof key === 'string' ? createPrivateKey(key) : key;
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: k, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

export const HEADER = { alg: 'ES256', typ: 'svc-attestation+jwt', kid: 'did:svc:node:staging#key-1' };

export function otherKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

export function algNone(claims: unknown): string {
  return `${b64({ ...HEADER, alg: 'none' })}.${b64(claims)}.`;
}

/** The classic key-confusion attack: HS256 with the public key (as published) used as the HMAC secret. */
export function hs256WithPublicKey(publicMaterial: string, claims: unknown): string {
  const input = `${b64({ ...HEADER, alg: 'HS256' })}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', publicMaterial).update(input).digest('base64url')}`;
}

export function recordFor(c: ReturnType<typeof claimsFor>, orgId = 'org-a'): AttestationRecord {
  return {
    id: c.jti,
    org_id: orgId,
    iss: c.iss,
    kid: HEADER.kid,
    sub: c.sub,
    iat: c.iat,
    exp: c.exp,
    result: c.svc.result as AttestationRecord['result'],
    query_hash: c.svc.query_hash,
    proof_hash: c.svc.proof_hash,
    revoked_at: null,
    revoked_by: null,
  };
}
