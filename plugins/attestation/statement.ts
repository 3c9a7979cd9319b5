import type { KeyObject } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { signJws } from '../../core/keys/es256.js';
import type { SigningKey } from './keys.js';
import { MAX_TOKEN_BYTES } from './verify.js';

/**
 * `attestation.signer`: signs other plugins' statements with the attestation key (the audit
 * plugin's chain checkpoints, sealed Verification Context documents), as compact ES256 JWS, and
 * checks such a statement against the keys the service accepts now. Null when no key is available.
 */
export interface StatementSigner {
  readonly kid: string;
  /** the public JWK (with kid/alg/use) a verifier needs offline */
  readonly publicJwk: Record<string, unknown>;
  /** RFC 7638 SHA-256 thumbprint of the public key: what an operator pins */
  readonly thumbprint: string;
  /** the key is the server's identity across restarts (attestation.key_continuity_policy persistent) */
  readonly persistent: boolean;
  sign(typ: string, payload: Record<string, unknown>): string;
  /**
   * The payload of a compact JWS of type `typ` signed (ES256) by a key this service accepts now —
   * the same keys as attestation tokens, so a statement of a previous ephemeral key or of a
   * rotated-out key is refused like its tokens — or null for anything else (never throws).
   */
  verify(typ: string, jws: unknown): Promise<Record<string, unknown> | null>;
}

export function createStatementSigner(key: SigningKey, accepted: ReadonlyMap<string, KeyObject>, persistent = false): StatementSigner {
  return {
    kid: key.kid,
    persistent,
    publicJwk: key.publicJwk as Record<string, unknown>,
    thumbprint: key.thumbprint,
    sign(typ, payload) {
      return signJws({ alg: 'ES256', typ, kid: key.kid }, payload, key.privateKey);
    },
    async verify(typ, jws) {
      if (typeof jws !== 'string' || Buffer.byteLength(jws) > MAX_TOKEN_BYTES) return null;
      try {
        const header = decodeProtectedHeader(jws);
        if (header.alg !== 'ES256' || header.typ !== typ || typeof header.kid !== 'string') return null;
        const pub = accepted.get(header.kid);
        if (!pub) return null;
        const { payload } = await compactVerify(jws, pub, { algorithms: ['ES256'] });
        const value: unknown = JSON.parse(Buffer.from(payload).toString('utf8'));
        return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    },
  };
}
