import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { Logger } from 'pino';
import type { AttestationSettings } from './settings.js';
import type { Store } from '../../core/store/store.js';
import { AttestationKeyError } from './errors.js';

/**
 * Key lifecycle (decisions §6). `ephemeral`: a fresh P-256 key per process start, so tokens die
 * with the process (fine for a single sidecar). `persistent`: an operator-supplied PKCS#8 PEM, so
 * tokens survive restarts and are shared by replicas. Anything else is refused: the config schema
 * already rejects unknown policies, and this module refuses them again so a programmatic caller
 * cannot slip past the schema.
 */
export type KeyContinuityPolicy = 'ephemeral' | 'persistent';
export const KEY_POLICIES: readonly KeyContinuityPolicy[] = ['ephemeral', 'persistent'];

export interface SigningKey {
  issuer: string;
  keyName: string;
  /** `<issuer DID>#<key name>` */
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
  /** RFC 7638 thumbprint of the public JWK: identifies the key material across restarts */
  thumbprint: string;
  policy: KeyContinuityPolicy;
  /** epoch seconds when the key was generated (ephemeral) or first seen by this store (persistent) */
  generatedAt: number;
}

interface KeyRecord {
  kid: string;
  policy: KeyContinuityPolicy;
  generated_at: number;
}

export function assertP256(key: KeyObject, what: string): void {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new AttestationKeyError(`${what} must be an EC P-256 key (got ${key.asymmetricKeyType ?? 'unknown'}${key.asymmetricKeyDetails?.namedCurve ? ' ' + key.asymmetricKeyDetails.namedCurve : ''})`);
  }
}

function importPersistent(pem: string | null): KeyObject {
  if (!pem || !pem.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new AttestationKeyError('attestation.signing_key_pem must be an unencrypted PKCS#8 PEM (BEGIN PRIVATE KEY)');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    // never echo the PEM or the parser's message, which may quote it
    throw new AttestationKeyError('attestation.signing_key_pem could not be parsed as a PKCS#8 private key');
  }
  assertP256(key, 'attestation.signing_key_pem');
  return key;
}

/** Loads or generates the signing key once at start-up; throws AttestationKeyError on a bad key. `nowMs`: the clock (tests). */
export async function loadSigningKey(cfg: AttestationSettings, store: Store, log: Logger, nowMs: () => number = Date.now): Promise<SigningKey> {
  const policy = cfg.key_continuity_policy as string;
  if (!KEY_POLICIES.includes(policy as KeyContinuityPolicy)) {
    throw new AttestationKeyError(`attestation.key_continuity_policy must be ephemeral or persistent (got ${JSON.stringify(policy)})`);
  }
  const now = Math.floor(nowMs() / 1000);
  const privateKey = policy === 'persistent' ? importPersistent(cfg.signing_key_pem) : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const publicKey = createPublicKey(privateKey);
  const publicJwk = await exportJWK(publicKey);
  const thumbprint = await calculateJwkThumbprint(publicJwk, 'sha256');
  const kid = `${cfg.issuer}#${cfg.key_name}`;
  let generatedAt = now;
  if (policy === 'persistent') {
    // the same key material keeps its first-seen time across restarts and replicas
    const keys = store.collection<KeyRecord>('attestation_keys');
    await keys.insert(thumbprint, { kid, policy: 'persistent', generated_at: now });
    generatedAt = (await keys.get(thumbprint))?.generated_at ?? now;
    log.info({ event: 'attestation.key_loaded', kid, generated_at: generatedAt, policy }, 'attestation signing key loaded');
  } else {
    log.info({ event: 'attestation.key_generated', kid, generated_at: generatedAt, policy }, 'attestation signing key generated');
  }
  return {
    issuer: cfg.issuer,
    keyName: cfg.key_name,
    kid,
    privateKey,
    publicKey,
    publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' },
    thumbprint,
    policy: policy as KeyContinuityPolicy,
    generatedAt,
  };
}
