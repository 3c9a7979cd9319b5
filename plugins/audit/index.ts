import type { App, Plugin, RequestContext } from '../../core/types.js';
import type { AdminAudit } from '../auth/index.js';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { AuditChain } from './chain.js';
import { Checkpointer, type CheckpointSigner } from './checkpoint.js';
import { pruneAudit } from './retention.js';
import { REFUSAL_REASONS } from './prune-gate.js';
import { assertAuditable, registerAuditHooks } from './hooks.js';
import { registerAuditRoutes } from './routes.js';
import { LiveMetaTable, registerLiveMeta } from './live-meta.js';
import { registerAuditStateRoute } from './state-route.js';
import { createAuditReader, type AuditReader } from './reader.js';
import { AUDIT_CODECS } from './compact.js';
import { auditSettings } from './settings.js';

/**
 * Tamper-evident audit: one HMAC'd hash chain per organisation, appended before every verification
 * response is written; read routes (/audit/*, /logs); the offline `proofgate audit verify` command.
 * Without SVC_AUDIT_SECRET_KEY the plugin loads but verification routes answer 503 and /readyz
 * stays false (fail closed).
 */
export const AUDIT_SERVICES = { chain: 'audit.chain', admin: 'audit.admin', reader: 'audit.reader' } as const;

declare module '../../core/types.js' {
  interface Services {
    /** null without SVC_AUDIT_SECRET_KEY */
    'audit.chain': AuditChain | null;
    /** administrative acts (key, agent, plan changes) as entries of the organisation's chain */
    'audit.admin': AdminAudit;
    'audit.reader': AuditReader;
  }
}

const plugin: Plugin = {
  name: 'audit',
  provides: Object.values(AUDIT_SERVICES),
  // attestation.signer signs the checkpoints; the kernel runs its seal before audit's record whatever the order
  optional: ['security.events', 'attestation.signer'],
  collections: AUDIT_CODECS,
  settings: auditSettings,
  register(app: App) {
    const secret = app.config.secrets.audit_secret_key;
    const chain = secret ? new AuditChain(app.store, secret) : null;
    if (!chain) app.log.error('SVC_AUDIT_SECRET_KEY is not set: verification endpoints will answer 503');
    app.readiness('audit', () => chain !== null);
    registerAuditHooks(app, chain, app.service('security.events'));
    const live = new LiveMetaTable();
    registerLiveMeta(app, live);
    registerAuditRoutes(app, live);
    registerAuditStateRoute(app);
    app.provide(AUDIT_SERVICES.chain, chain);
    if (chain) {
      // the chain counts its commits anyway (group commit); read at scrape time, nothing per append
      app.metrics.observedCounter('svc_audit_entries_total', 'Audit entries this process appended (verdicts, refusals, administrative acts)', () => chain.stats.entries);
      app.metrics.observedCounter('svc_audit_commits_total', 'Audit commits (one transaction for a group of entries) this process made', () => chain.stats.commits);
      app.metrics.observedCounter('svc_audit_commit_races_total', 'Audit batches resealed because another writer took their position first (shared mode)', () => chain.stats.races);
    }
    app.provide(AUDIT_SERVICES.reader, createAuditReader(app.store, secret ?? null));
    if (chain) {
      // the attestation plugin registers first; its key signs the checkpoints (null: no key)
      const signer = app.service('attestation.signer') ?? null;
      const cfg = app.settings(auditSettings);
      const checkpoints = new Checkpointer(app.store, chain, signer, app.log);
      checkpoints.start(cfg.checkpoint_interval_seconds);
      if (cfg.retention_days !== null) {
        const days = cfg.retention_days;
        const exportDir = cfg.export_dir ?? join(app.config.data_dir, 'audit-export');
        const refused = app.metrics.counter('svc_audit_prune_refused_total', 'Audit retention prunes refused because the expired prefix of a chain does not verify, by reason (nothing of that chain was pruned)', ['reason']);
        // every reason exported from the start at 0, so an alert on increase() sees the first refusal
        for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);
        const sweep = async () => {
          // a persistent key is the server's identity across restarts: a chain may continue only
          // from a prune checkpoint of that key (or of an earlier one the operator names)
          const anchorPins = signer?.persistent
            ? [await calculateJwkThumbprint(signer.publicJwk as JWK, 'sha256'), ...cfg.prune_anchor_keys]
            : undefined;
          await pruneAudit({ store: app.store, chain, signer, secret: secret!, log: app.log, retentionDays: days, exportDir, refused, anchorPins });
        };
        app.every(3_600_000, sweep, { atStart: true, onError: (err) => app.log.error({ err }, 'audit retention failed') });
      }
      app.onClose(() => checkpoints.stop());
    }
    const admin: AdminAudit = {
      async ready(ctx: RequestContext) {
        await assertAuditable(chain, ctx);
      },
      async record(ctx: RequestContext, action: string, subject?: string) {
        const org = await assertAuditable(chain, ctx);
        const entry = await chain!.append(org, {
          route: ctx.routePath,
          method: ctx.method,
          key_id: ctx.principal?.keyId ?? null,
          user_id: ctx.principal?.userId ?? null,
          request_hash: null,
          status: 'admin',
          engine: action,
          http_status: 200,
          proof_ref: null,
          // for an administrative entry: what was acted on (`api_key:…`, `agent:…`, `attestation:…`)
          constraint_id: subject ? subject.slice(0, 128) : null,
          raw_llm_output: null,
        });
        ctx.responseHeaders['x-audit-log-id'] = entry.log_id;
      },
    };
    app.provide(AUDIT_SERVICES.admin, admin);
  },
};
export default plugin;

// the plugin's surface: what other plugins, the CLI and operators use (tests import modules directly)
export { AuditChain } from './chain.js';
export { AUDIT_SLOTS } from './slots.js';
export { createAuditVerifyCommand } from './cli.js';
export { entriesToCsv, csvReply } from './csv.js';
export { parseLogId, MalformedEntryError, type AuditEntry, type AuditFields, type AuditStatus } from './payload.js';
export { emptyCounts, type AuditReader, type StatusCounts } from './reader.js';
// the offline surface: commands that check chains on a store without a running server (proofgate migrate)
export { AUDIT_COLLECTION, AUDIT_CODECS } from './compact.js';
export { walkChains, type WalkResult } from './verify.js';
export { checkAgainstCheckpoints, checkpointAnchor } from './checkpoint.js';
