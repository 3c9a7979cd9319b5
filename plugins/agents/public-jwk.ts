import { createPublicKey, type JsonWebKey } from 'node:crypto';

/**
 * The public keys an agent may register to sign its A2A messages (issue 12): EC P-256 (ES256) or
 * OKP Ed25519 (EdDSA), public members only. Anything else is refused with the reason, because a
 * key that cannot verify, or a private key posted to a server, must never be stored.
 */
export interface AgentPublicJwk {
  kty: 'EC' | 'OKP';
  crv: 'P-256' | 'Ed25519';
  x: string;
  y?: string;
  kid?: string;
  alg?: string;
  use?: string;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const ALLOWED = new Set(['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use', 'key_ops', 'ext']);
const B64URL = /^[A-Za-z0-9_-]+$/;

/** null when `jwk` is a usable public P-256 or Ed25519 JWK, else why not */
export function publicJwkProblem(jwk: unknown): string | null {
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk)) return 'must be a JWK object';
  const k = jwk as Record<string, unknown>;
  const priv = PRIVATE_MEMBERS.filter((m) => m in k);
  if (priv.length) return `holds private key members (${priv.join(', ')}); register the public key only`;
  const unknown = Object.keys(k).filter((m) => !ALLOWED.has(m));
  if (unknown.length) return `has unknown members (${unknown.join(', ')})`;
  if (k.use !== undefined && k.use !== 'sig') return 'use must be "sig"';
  if (k.kid !== undefined && (typeof k.kid !== 'string' || k.kid.length > 256)) return 'kid must be a string of at most 256 characters';
  if (k.kty === 'EC') {
    if (k.crv !== 'P-256') return 'an EC key must be on curve P-256';
    if (k.alg !== undefined && k.alg !== 'ES256') return 'alg of a P-256 key must be ES256';
    if (typeof k.y !== 'string' || !B64URL.test(k.y)) return 'an EC key needs y';
  } else if (k.kty === 'OKP') {
    if (k.crv !== 'Ed25519') return 'an OKP key must be on curve Ed25519';
    if (k.alg !== undefined && k.alg !== 'EdDSA' && k.alg !== 'Ed25519') return 'alg of an Ed25519 key must be EdDSA';
    if ('y' in k) return 'an OKP key has no y';
  } else {
    return 'kty must be EC (P-256) or OKP (Ed25519)';
  }
  if (typeof k.x !== 'string' || !B64URL.test(k.x)) return 'x must be base64url';
  try {
    // node refuses a point that is not on the curve
    createPublicKey({ key: { kty: k.kty, crv: k.crv, x: k.x, ...(k.kty === 'EC' ? { y: k.y } : {}) } as JsonWebKey, format: 'jwk' });
  } catch {
    return 'is not a valid public key';
  }
  return null;
}

/** the JWS algorithm a registered key verifies, pinned by its type */
export function jwkAlgorithm(jwk: AgentPublicJwk): 'ES256' | 'EdDSA' {
  return jwk.kty === 'EC' ? 'ES256' : 'EdDSA';
}

/** only the members needed to verify: nothing the caller added rides along into the store */
export function normalizePublicJwk(jwk: AgentPublicJwk): AgentPublicJwk {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y !== undefined ? { y: jwk.y } : {}), ...(jwk.kid !== undefined ? { kid: jwk.kid } : {}) };
}
