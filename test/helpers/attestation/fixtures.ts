import { generateKeyPairSync } from 'node:crypto';
import { pino } from 'pino';
import type { Config } from '../../../core/config.js';
import type { Store } from '../../../core/store/store.js';
import { verified, type DiagnosticResult } from '../../../core/verdict.js';
import { createIssuer, type Signer } from '../../../plugins/attestation/issue.js';
import { loadSigningKey, type SigningKey } from '../../../plugins/attestation/keys.js';
import type { AttestationRecord } from '../../../plugins/attestation/types.js';
import { createVerifier } from '../../../plugins/attestation/verify.js';
import { LogSink, memoryCollection } from './harness.js';
import type { AttestationSettings } from '../../../plugins/attestation/settings.js';

export const P256_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

export function attestationConfig(over: Partial<AttestationSettings> = {}): AttestationSettings {
  return {
    issuer: 'did:svc:node:staging',
    key_continuity_policy: 'ephemeral',
    signing_key_pem: null,
    key_name: 'key-1',
    lifetime_seconds: 3600,
    trusted_issuers: ['did:svc:node:production', 'did:svc:node:staging'],
    prune_grace_seconds: 86400,
    retired_keys: [],
    ...over,
  };
}

export function memoryStore(): Store {
  const cols = new Map<string, ReturnType<typeof memoryCollection>>();
  return {
    ready: true,
    collection<T>(name: string) {
      if (!cols.has(name)) cols.set(name, memoryCollection());
      return cols.get(name) as unknown as ReturnType<typeof memoryCollection<T>>;
    },
    async commit(ops) {
      const col = (n: string) => this.collection<unknown>(n) as ReturnType<typeof memoryCollection<unknown>>;
      if (ops.some((op) => op.ifAbsent && col(op.collection).map.has(op.key))) return false;
      for (const op of ops) {
        if (op.value === undefined) col(op.collection).map.delete(op.key);
        else col(op.collection).map.set(op.key, op.value);
      }
      return true;
    },
    async stats() {
      return [...cols.entries()].map(([name, c]) => ({ name, entries: c.map.size, bytes: null }));
    },
    async close() {},
    // values stay in memory as they are: a layout only matters to bytes on disk
    useCodecs() {},
  };
}

export function proven(input = '2+2=4'): DiagnosticResult {
  return verified('Identity is true', { is_valid: true, result: true }, { engine: 'math', engine_version: '1', input, result: true });
}

/** An issuer and a verifier over one in-memory record collection and one key, with a movable clock. */
export async function kit(opts: { cfg?: Partial<AttestationSettings>; sign?: Signer; keyless?: boolean; failWrites?: boolean } = {}) {
  const logs = new LogSink();
  const log = pino({ level: 'debug' }, logs.stream);
  const cfg = attestationConfig(opts.cfg);
  const key: SigningKey = await loadSigningKey(cfg, memoryStore(), log);
  const records = memoryCollection<AttestationRecord>({ failWrites: opts.failWrites });
  const clock = { t: Math.floor(Date.now() / 1000) };
  const now = () => clock.t;
  const issue = createIssuer({ key: opts.keyless ? null : key, lifetimeSeconds: cfg.lifetime_seconds, records, log, now, sign: opts.sign });
  const verify = createVerifier({ keys: new Map([[key.kid, key.publicKey]]), trustedIssuers: cfg.trusted_issuers, records, now });
  return { key, records, clock, issue, verify, log, logs, cfg };
}
