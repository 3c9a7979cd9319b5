import { calculateJwkThumbprint, type JWK } from 'jose';
import type { App } from '../../core/types.js';
import { CHECKPOINT_COLLECTION, checkCheckpoint, checkpointKey, type Checkpoint } from './checkpoint.js';
import { AUDIT_COLLECTION } from './compact.js';
import { entryKey, type AuditEntry } from './payload.js';
import { auditSettings } from './settings.js';
import type { Checkpoint as CheckpointWire } from '../../schemas/gen/index.js';

const S = 'https://proofgate.dev/schemas/audit';
/** the newest checkpoints shown; older ones are the offline verifier's (proofgate audit verify) */
const RECENT = 10;

/** a checkpoint as GET /audit/state shows it (schemas: the shared `checkpoint` component) */
type CheckpointView = CheckpointWire;

/**
 * GET /audit/state: the caller's organisation's chain extent, signed checkpoints and retention
 * setting (issue 41, the console's audit view). Everything here was already kept (checkpoint.ts,
 * retention.ts); the route reads it for one organisation. A checkpoint is reported with its own
 * check, not trusted: its signature under the key stored beside it, and whether the chain still
 * holds its head. Pinning the key is the offline verifier's job (a key stored beside the data proves
 * nothing against whoever can rewrite both); the thumbprint is shown so a reader can compare.
 */
export function registerAuditStateRoute(app: App): void {
  app.route({
    method: 'GET',
    path: '/audit/state',
    auth: 'jwt',
    schema: { response: `${S}/state.response.json` },
    async handler(ctx) {
      const org = ctx.principal!.orgId;
      const entries = app.store.collection<AuditEntry>(AUDIT_COLLECTION);
      const [oldest] = await entries.list({ prefix: `${org}/`, limit: 1 });
      const [newest] = await entries.list({ prefix: `${org}/`, reverse: true, limit: 1 });
      const first = oldest?.value.seq ?? null;
      const view = async (v: unknown): Promise<CheckpointView | null> => {
        const r = await checkCheckpoint(v);
        const c = v as Partial<Checkpoint>;
        if (!c || typeof c !== 'object' || typeof c.seq !== 'number' || typeof c.head_hash !== 'string') return null;
        let matches: boolean | null = null;
        if (first === null || c.seq >= first) matches = (await entries.get(entryKey(org, c.seq)))?.payload_hash === c.head_hash;
        let thumbprint: string | null = null;
        try {
          thumbprint = await calculateJwkThumbprint(c.public_jwk as JWK, 'sha256');
        } catch {
          thumbprint = null;
        }
        return {
          seq: c.seq,
          head_hash: c.head_hash,
          created_at: String(c.created_at ?? ''),
          reason: String(c.reason ?? ''),
          kid: String(c.kid ?? ''),
          key_thumbprint: thumbprint,
          signature_valid: r.ok && r.cp.org_id === org,
          matches_chain: matches,
        };
      };
      const cps = app.store.collection<unknown>(CHECKPOINT_COLLECTION);
      const recent = (await Promise.all((await cps.list({ prefix: `${org}/`, reverse: true, limit: RECENT })).map((e) => view(e.value)))).filter((x) => x !== null);
      // a pruned chain starts right after its prune checkpoint, the anchor the verifier starts from
      const pruneAt = first !== null && first > 0 ? await cps.get(checkpointKey(org, first - 1)) : undefined;
      const days = app.settings(auditSettings).retention_days;
      // resolved per request: the attestation plugin may be absent (then nothing is checkpointed)
      const signer = app.service('attestation.signer') ?? null;
      return {
        body: {
          chain: {
            first_seq: first,
            head_seq: newest?.value.seq ?? null,
            oldest_at: oldest?.value.timestamp ?? null,
            newest_at: newest?.value.timestamp ?? null,
          },
          checkpoints: {
            enabled: signer !== null && app.config.secrets.audit_secret_key !== null && app.config.secrets.audit_secret_key !== undefined,
            interval_seconds: app.settings(auditSettings).checkpoint_interval_seconds,
            recent,
          },
          retention: {
            days,
            cutoff: days === null ? null : new Date(Date.now() - days * 86_400_000).toISOString(),
            pruned_through: pruneAt === undefined ? null : await view(pruneAt),
          },
        },
      };
    },
  });
}
