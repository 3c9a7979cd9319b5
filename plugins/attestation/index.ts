import type { KeyObject } from 'node:crypto';
import type { App, Plugin } from '../../core/types.js';
import type { DiagnosticResult } from '../../core/verdict.js';
import { addIdentity } from '../health/index.js';
import { publishJwk, type PublishedJwk } from '../../core/keys/jwks.js';
import { traced } from '../../core/obs/tracing.js';
import { registerAttachHook } from './attach.js';
import { AttestationKeyError } from './errors.js';
import { createIssuer, TOKEN_TYPE } from './issue.js';
import { loadSigningKey, type SigningKey } from './keys.js';
import { loadRetiredKeys } from './retired.js';
import { RecordPruner } from './prune.js';
import { ATTESTATION_CODECS } from './compact.js';
import { registerRoutes } from './routes.js';
import { registerBadgeUrl } from './badge-url.js';
import { gateBatchMathItem, trustGate, type TrustGateOptions } from './trust-gate.js';
import type { AttestationRecord, AttestationService } from './types.js';
import { createVerifier, recordStatus } from './verify.js';
import { createStatementSigner, type StatementSigner } from './statement.js';

export { trustGate, gateBatchMathItem, TRUST_GATE, BATCH_SIGNING_ERROR } from './trust-gate.js';
export type { TrustGateOptions, GatedBatchItem } from './trust-gate.js';
export { TOKEN_TYPE, subjectOf } from './issue.js';
export { MAX_TOKEN_BYTES } from './verify.js';
export { verifyAttestationOffline, type OfflineVerifyOptions, type OfflineVerifyResult } from './offline.js';
export { BADGE_LINK_SERVICE, badgeSignature, type BadgeLinkService, type BadgeLinkOutcome } from './badge-url.js';
export { RecordPruner } from './prune.js';
export type * from './types.js';

export const ATTESTATION_SERVICE = 'attestation';
export const RECORDS_COLLECTION = 'attestations';
/** Service name the batch plugin looks up for math items (plugins/batch/run.ts `BatchAttestor`). */
export const BATCH_ATTESTOR_SERVICE = 'attestation.batch';
/** `attestation.signer`: a StatementSigner (statement.ts), null when no key is available. */
export const ATTESTATION_SIGNER_SERVICE = 'attestation.signer';
export type { StatementSigner } from './statement.js';

/** `attestation.batch` implements the batch plugin's contract for math items (attestation required). */
import type { BatchAttestor } from '../batch/index.js';
import { BADGE_LINK_SERVICE, type BadgeLinkService } from './badge-url.js';
import { attestationSettings } from './settings.js';

declare module '../../core/types.js' {
  interface Services {
    attestation: AttestationService;
    'attestation.batch': BatchAttestor;
    'attestation.signer': StatementSigner | null;
    'attestation.badge-link': BadgeLinkService;
  }
}
export type { BatchAttestor };

/** The service plus a trust gate already bound to this service's verifier and logger. */
export interface BoundAttestationService extends AttestationService {
  trustGate(diagnostic: DiagnosticResult, opts: Omit<TrustGateOptions, 'verify' | 'log'>): Promise<DiagnosticResult>;
}


async function keyOrNull(app: App): Promise<SigningKey | null> {
  try {
    return await loadSigningKey(app.settings(attestationSettings), app.store, app.log);
  } catch (err) {
    // a bad configured key stops start-up; only a crypto runtime without P-256 degrades to CRYPTO_UNAVAILABLE
    if (err instanceof AttestationKeyError || app.settings(attestationSettings).key_continuity_policy === 'persistent') throw err;
    app.log.error({ event: 'attestation.crypto_unavailable', err_message: (err as Error).message }, 'no attestation key could be generated');
    return null;
  }
}

async function register(app: App): Promise<void> {
  const cfg = app.settings(attestationSettings);
  const records = app.store.collection<AttestationRecord>(RECORDS_COLLECTION);
  const key = await keyOrNull(app);
  const retired = await loadRetiredKeys(cfg.retired_keys, { issuer: cfg.issuer, currentKid: key?.kid ?? `${cfg.issuer}#${cfg.key_name}`, currentThumbprint: key?.thumbprint, lifetimeSeconds: cfg.lifetime_seconds });
  // the keys tokens and statements are checked against, and their thumbprints (what a record names):
  // the signing key, and the retired keys whose tokens may still be alive. A retired key's record
  // expires by its window's end, so its entry needs no removal: EXPIRED is decided before the key.
  const keys = new Map<string, KeyObject>();
  const accepted = new Map<string, string>();
  if (key) {
    keys.set(key.kid, key.publicKey);
    accepted.set(key.kid, key.thumbprint);
  }
  const nowS = () => Math.floor(Date.now() / 1000);
  for (const r of retired) {
    if (nowS() >= r.until) continue;
    keys.set(r.kid, r.publicKey);
    accepted.set(r.kid, r.thumbprint);
  }
  const sign = createIssuer({ key, lifetimeSeconds: cfg.lifetime_seconds, records, log: app.log });
  const issued = app.metrics.counter('svc_attestations_total', 'Attestation issuance outcomes by status (issued, blocked, unverifiable) and error code (none when issued)', ['status', 'code']);
  const issue: typeof sign = async (diagnostic, opts) => {
    const r = await traced('attestation sign', {}, () => sign(diagnostic, opts));
    issued.inc({ status: r.status.toLowerCase(), code: (r.error_code ?? 'none').toLowerCase() });
    return r;
  };
  const verify = createVerifier({ keys, trustedIssuers: cfg.trusted_issuers, records, signedBefore: new Map(retired.map((r) => [r.kid, r.retiredAt])) });
  const service: BoundAttestationService = {
    issuer: cfg.issuer,
    kid: key?.kid ?? `${cfg.issuer}#${cfg.key_name}`,
    issue,
    verify,
    async status(id, orgId) {
      const r = await records.get(id);
      if (!r || r.org_id === null || r.org_id !== orgId) return null;
      return recordStatus(r, Math.floor(Date.now() / 1000), accepted);
    },
    async lookup(id) {
      const r = await records.get(id);
      return r ? { status: recordStatus(r, Math.floor(Date.now() / 1000), accepted), record: r } : null;
    },
    trustGate: (diagnostic, opts) => trustGate(diagnostic, { ...opts, verify, log: app.log }),
  };
  app.provide(ATTESTATION_SERVICE, service);
  const signer: StatementSigner | null = key ? createStatementSigner(key, keys, cfg.key_continuity_policy === 'persistent') : null;
  app.provide(ATTESTATION_SIGNER_SERVICE, signer);
  const batchAttestor: BatchAttestor = {
    async gate(diagnostic, subject) {
      const g = await gateBatchMathItem(service, diagnostic, { query: subject.query, engine: subject.engine, org_id: subject.org_id ?? null, log: app.log });
      return { result: g.diagnostic, ...(g.attestation ? { attestation: g.attestation, attestation_id: g.attestation_id ?? undefined } : {}) };
    },
  };
  app.provide(BATCH_ATTESTOR_SERVICE, batchAttestor);
  addIdentity(app, {
    key: 'attestation',
    describe: () =>
      key
        ? {
            issuer: key.issuer,
            kid: key.kid,
            alg: 'ES256',
            typ: TOKEN_TYPE,
            public_jwk: key.publicJwk,
            key_continuity_policy: key.policy,
            generated_at: key.generatedAt,
            lifetime_seconds: cfg.lifetime_seconds,
            trusted_issuers: [...cfg.trusted_issuers],
          }
        : { issuer: cfg.issuer, kid: null, available: false },
  });
  // offline verifiers (`proofgate attestation verify --jwks …/.well-known/jwks.json`) find the key beside the A2A key
  if (key) publishJwk(app, () => key.publicJwk as PublishedJwk);
  // each retired key until the last token it signed has expired
  for (const r of retired) publishJwk(app, () => (nowS() < r.until ? r.publicJwk : null));
  registerRoutes(app, service, records, accepted);
  registerBadgeUrl(app, records, accepted);
  if (cfg.prune_grace_seconds !== null) {
    const pruner = new RecordPruner(app.store, RECORDS_COLLECTION, cfg.prune_grace_seconds);
    // records of releases with random ids are found only by a full pass: one at start, then steps
    let first = true;
    const sweep = () => (first ? ((first = false), pruner.sweep()) : pruner.step());
    app.every(60_000, sweep, { atStart: true, onError: (err) => app.log.error({ err }, 'attestation record pruning failed') });
  }
  registerAttachHook(app, service, RECORDS_COLLECTION);
}

const plugin: Plugin = {
  name: 'attestation',
  provides: [ATTESTATION_SERVICE, ATTESTATION_SIGNER_SERVICE, BATCH_ATTESTOR_SERVICE, BADGE_LINK_SERVICE],
  optional: ['identity.parts'],
  // audit's record phase commits the record of the attestation sealed here with its entry
  late: ['audit.admin', 'audit.chain'],
  // records are stored in their compact layout by the store the kernel opens
  collections: ATTESTATION_CODECS,
  settings: attestationSettings,
  register,
};
export default plugin;
