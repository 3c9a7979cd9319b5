import { createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import type { PublishedJwk } from '../../core/keys/jwks.js';
import { AttestationKeyError } from './errors.js';
import { assertP256 } from './keys.js';

/** `attestation.retired_keys[]` as configured: a key this service signed with before a rotation */
export interface RetiredKeyConfig {
  key_name: string;
  public_key_pem: string;
  /** RFC 3339: when the key stopped signing */
  retired_at: string;
}

export interface RetiredKey {
  kid: string;
  publicKey: KeyObject;
  publicJwk: PublishedJwk;
  thumbprint: string;
  /** epoch seconds */
  retiredAt: number;
  /** epoch seconds: no token the key signed is valid past this (retired_at + lifetime) */
  until: number;
}

/**
 * Keys retired by a rotation stay verifiable until the last token they signed expires: a token
 * issued just before `retired_at` lives `lifetime_seconds` more. They are published in the JWKS and
 * accepted by verification only in that window; signing uses the current key alone. A retired key
 * must have its own key name (kid): two keys under one kid would leave a verifier to guess.
 */
export async function loadRetiredKeys(list: readonly RetiredKeyConfig[], o: { issuer: string; currentKid: string; currentThumbprint?: string; lifetimeSeconds: number }): Promise<RetiredKey[]> {
  const out: RetiredKey[] = [];
  for (const [i, r] of list.entries()) {
    const where = `attestation.retired_keys[${i}]`;
    const kid = `${o.issuer}#${r.key_name}`;
    if (kid === o.currentKid) throw new AttestationKeyError(`${where}: key_name ${r.key_name} is the current key's; a rotation gives the new key a new key_name`);
    if (out.some((k) => k.kid === kid)) throw new AttestationKeyError(`${where}: key_name ${r.key_name} is retired twice`);
    const retiredAt = Date.parse(r.retired_at);
    if (!Number.isFinite(retiredAt)) throw new AttestationKeyError(`${where}: retired_at must be an RFC 3339 date-time (got ${JSON.stringify(r.retired_at)})`);
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: r.public_key_pem, format: 'pem' });
    } catch {
      throw new AttestationKeyError(`${where}: public_key_pem could not be parsed as a public key (BEGIN PUBLIC KEY)`);
    }
    // a private PEM parses as a public key too: refuse it rather than keep a secret in a list of public keys
    if (r.public_key_pem.includes('PRIVATE KEY')) throw new AttestationKeyError(`${where}: public_key_pem holds a private key; give its public half (openssl pkey -pubout)`);
    assertP256(publicKey, `${where}.public_key_pem`);
    const jwk = await exportJWK(publicKey);
    const thumbprint = await calculateJwkThumbprint(jwk, 'sha256');
    if (thumbprint === o.currentThumbprint) throw new AttestationKeyError(`${where}: is the current signing key; a retired key is one no longer configured to sign`);
    const at = Math.floor(retiredAt / 1000);
    out.push({ kid, publicKey, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y!, kid, alg: 'ES256', use: 'sig' }, thumbprint, retiredAt: at, until: at + o.lifetimeSeconds });
  }
  return out;
}
