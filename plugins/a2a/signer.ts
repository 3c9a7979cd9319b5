import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { b64urlJson, signDetachedJws, signJws, signJwsAsync } from '../../core/keys/es256.js';
import type { VerdictStatus } from './message.js';

/**
 * ES256 verdict signing on the hot path, with the kernel's signer (core/keys/es256.ts): the PKCS#8 key is
 * imported once into a KeyObject, and the protected header never changes, so it is encoded once.
 */
export const JWT_TYP = 'svc-a2a-attestation+jwt';
export const CLAIMS_VERSION = '1.0';

export interface A2AClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  /** sender_auth: how the sender id was authenticated (issue 12); `none` in claim-only mode */
  svc_a2a: { version: string; verdict: VerdictStatus; engine: string | null; sender: string; receiver: string; sender_auth: string };
}

export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  use: 'sig';
  alg: 'ES256';
}

export type SigningKeyState = { ok: true; signer: VerdictSigner } | { ok: false; reason: string };

export function issuerDid(deploymentId: string): string {
  return `did:svc:a2a:${deploymentId}`;
}

/** First 16 hex characters of SHA-256 over the DER SubjectPublicKeyInfo: stable for an unchanged key. */
export function keyFingerprint(publicKey: KeyObject): string {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('hex').slice(0, 16);
}

/**
 * Imports the configured key or says why it cannot: missing, not an unencrypted PKCS#8 PEM, not EC,
 * or not P-256. Never generates a key (spec, authentication rule 5). The reason goes to the operator
 * log only; clients see the fixed 503 text.
 */
export function loadSigningKey(pem: string | null | undefined, deploymentId: string, lifetimeSeconds: number): SigningKeyState {
  if (!pem || !pem.trim()) return { ok: false, reason: 'a2a.signing_key_pem (SVC_A2A_SIGNING_KEY_PEM) is not set' };
  if (!/-----BEGIN PRIVATE KEY-----/.test(pem)) {
    return { ok: false, reason: 'a2a.signing_key_pem is not an unencrypted PKCS#8 PEM (expected BEGIN PRIVATE KEY)' };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return { ok: false, reason: 'a2a.signing_key_pem cannot be parsed as a private key' };
  }
  if (key.asymmetricKeyType !== 'ec') return { ok: false, reason: `a2a.signing_key_pem is a ${key.asymmetricKeyType} key; ES256 needs EC P-256` };
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve !== 'prime256v1') return { ok: false, reason: `a2a.signing_key_pem is on curve ${curve}; ES256 needs P-256` };
  return { ok: true, signer: new VerdictSigner(key, deploymentId, lifetimeSeconds) };
}

export class VerdictSigner {
  readonly issuer: string;
  readonly kid: string;
  readonly fingerprint: string;
  readonly jwk: PublicJwk;
  private readonly headerB64: string;

  constructor(
    private readonly key: KeyObject,
    deploymentId: string,
    readonly lifetimeSeconds: number,
  ) {
    const pub = createPublicKey(key);
    this.issuer = issuerDid(deploymentId);
    this.fingerprint = keyFingerprint(pub);
    this.kid = `${this.issuer}#key-${this.fingerprint}`;
    const { x, y } = pub.export({ format: 'jwk' }) as { x: string; y: string };
    this.jwk = { kty: 'EC', crv: 'P-256', x, y, kid: this.kid, use: 'sig', alg: 'ES256' };
    this.headerB64 = b64urlJson({ alg: 'ES256', typ: JWT_TYP, kid: this.kid });
  }

  /** Claims for one verdict; `sub` is the caller's sha256Ref of the payload. */
  claims(o: { sub: string; traceId: string; verdict: VerdictStatus; engine: string | null; sender: string; receiver: string; senderAuth: string; nowMs: number }): A2AClaims {
    const iat = Math.floor(o.nowMs / 1000);
    return {
      iss: this.issuer,
      sub: o.sub,
      iat,
      exp: iat + this.lifetimeSeconds,
      jti: o.traceId,
      svc_a2a: { version: CLAIMS_VERSION, verdict: o.verdict, engine: o.engine, sender: o.sender, receiver: o.receiver, sender_auth: o.senderAuth },
    };
  }

  /** A flattened, detached ES256 JWS over `payload` (AgentCard signatures: the card is not embedded). */
  signDetached(protectedHeader: Record<string, unknown>, payload: Buffer): { protected: string; signature: string } {
    return signDetachedJws({ ...protectedHeader, alg: 'ES256', kid: this.kid }, payload, this.key);
  }

  sign(claims: A2AClaims): string {
    return signJws(this.headerB64, claims, this.key);
  }

  /** The same token, signed on the thread pool: the intercept path's event loop skips the ~45 µs of ECDSA. */
  signAsync(claims: A2AClaims): Promise<string> {
    return signJwsAsync(this.headerB64, claims, this.key);
  }
}
