import type { App, RequestContext } from '../../core/types.js';
import type { AdminAudit } from '../auth/index.js';
import { HttpError } from '../../core/errors.js';
import type { Collection } from '../../core/store/store.js';
import { AttestationProblems, INVALID_TOKEN_DETAIL } from './errors.js';
import { recordStatus } from './verify.js';
import type { AttestationRecord, AttestationService } from './types.js';

const S = 'https://proofgate.dev/schemas/attestation';
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Another organisation's attestation is indistinguishable from a missing one (decisions §5). */
async function ownRecord(records: Collection<AttestationRecord>, ctx: RequestContext): Promise<AttestationRecord> {
  const r = await records.get(ctx.params.id);
  if (!r || r.org_id === null || r.org_id !== ctx.principal?.orgId) {
    throw new HttpError(AttestationProblems.notFound, 'no such attestation');
  }
  return r;
}

/** The audit chain's administrative entries (audit plugin); resolved per request, it registers later. */
function adminAudit(app: App): AdminAudit | undefined {
  return app.service('audit.admin');
}

/** `accepted`: kid → thumbprint of the keys the service accepts now (a record's status depends on it). */
export function registerRoutes(app: App, service: AttestationService, records: Collection<AttestationRecord>, accepted: ReadonlyMap<string, string>): void {
  const revocations = app.metrics.counter('svc_attestation_revocations_total', 'Attestations revoked (a second revocation of the same one is not counted)');
  app.route({
    method: 'GET',
    path: '/attestation/:id',
    auth: 'apiKey',
    scope: 'attestation:read',
    schema: { params: `${S}/id.params.json`, response: `${S}/record.response.json` },
    async handler(ctx) {
      const r = await ownRecord(records, ctx);
      return {
        body: {
          id: r.id,
          iss: r.iss,
          sub: r.sub,
          iat: r.iat,
          exp: r.exp,
          status: recordStatus(r, nowSeconds(), accepted),
          result: r.result,
          query_hash: r.query_hash,
          proof_hash: r.proof_hash,
          revoked_at: r.revoked_at,
        },
      };
    },
  });

  app.route({
    method: 'POST',
    path: '/attestation/:id/revoke',
    auth: 'apiKey',
    // revoking withdraws a proof the organisation handed out: an operator act (decisions §5, issue 12)
    scope: 'admin:all',
    bodyType: 'none',
    schema: { params: `${S}/id.params.json`, response: `${S}/revoke.response.json` },
    async handler(ctx) {
      await ownRecord(records, ctx);
      // fail closed: no revocation the audit chain cannot record
      await adminAudit(app)?.ready(ctx);
      const at = nowSeconds();
      const by = ctx.principal?.userId ?? ctx.principal?.keyId ?? null;
      let revokedNow = false;
      // atomic: a second revocation keeps the first timestamp
      const after = await records.update(ctx.params.id, (cur) => {
        revokedNow = !!cur && cur.revoked_at === null;
        return cur && cur.revoked_at === null ? { ...cur, revoked_at: at, revoked_by: by } : cur;
      });
      if (!after || after.revoked_at === null) throw new HttpError(AttestationProblems.notFound, 'no such attestation');
      if (revokedNow) {
        revocations.inc();
        ctx.log.info({ event: 'attestation.revoked', attestation_id: after.id, by }, 'attestation revoked');
        try {
          await adminAudit(app)?.record(ctx, 'attestation.revoke', `attestation:${after.id}`);
        } catch (err) {
          ctx.log.error({ err, attestation_id: after.id }, 'attestation revoked but not audited');
        }
      }
      return { body: { id: after.id, status: 'REVOKED', revoked_at: after.revoked_at } };
    },
  });

  app.route({
    method: 'POST',
    path: '/attestation/verify',
    auth: 'apiKey',
    scope: 'attestation:read',
    // tokens above 8 KiB are refused as Invalid token; bodies far beyond are a transport cap (413)
    bodyLimit: 64 * 1024,
    schema: { body: `${S}/verify.body.json`, response: `${S}/verify.response.json` },
    async handler(ctx) {
      const body = ctx.body as Record<string, unknown>;
      const jwt = body.jwt;
      const v = await service.verify(jwt);
      if (!v.ok) {
        ctx.log.info({ event: 'attestation.rejected', reason: v.reason }, 'attestation token rejected');
        // no token was presented at all: naming the member tells nothing about any token (issue 43:
        // {"token": …} answered a bare "Invalid token"); every token that fails stays identical
        if (!Object.hasOwn(body, 'jwt')) {
          throw new HttpError(AttestationProblems.invalidToken, `${INVALID_TOKEN_DETAIL}: the request body has no "jwt" member; send {"jwt": "<the token>"}${Object.hasOwn(body, 'token') ? ' (the member is "jwt", not "token")' : ''}`);
        }
        throw new HttpError(AttestationProblems.invalidToken, INVALID_TOKEN_DETAIL);
      }
      return { body: { valid: true, status: v.status, header: v.header, claims: v.claims } };
    },
  });
}
