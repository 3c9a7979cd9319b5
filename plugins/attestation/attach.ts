import type { App, Reply, RequestContext } from '../../core/types.js';
import { reviveDiagnostic, type DiagnosticResult } from '../../core/verdict.js';
import type { WriteOp } from '../../core/store.js';
import { AUDIT_SERVICES, AUDIT_WITH_STATE, VERIFICATION_TAG } from '../audit/index.js';
import type { AttestationService } from './types.js';

export const ATTESTABLE_TAG = 'attestable';

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);

/**
 * The evaluated input an attestation binds: what the route declared in `ctx.state.attestationQuery`
 * (e.g. natural-language math sets the translated expression), else the request's `expression`,
 * else its `query`.
 */
function queryOf(ctx: RequestContext): unknown {
  if (Object.hasOwn(ctx.state, 'attestationQuery')) return ctx.state.attestationQuery;
  const body = isPlainObject(ctx.body) ? ctx.body : {};
  return body.expression !== undefined ? body.expression : body.query;
}

function engineOf(ctx: RequestContext): string {
  const e = ctx.state.attestationEngine;
  if (typeof e === 'string' && e) return e;
  const parts = ctx.routePath.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? 'unknown';
}

/**
 * onReply hook: a 2xx JSON reply of a route tagged `attestable` whose verdict is VERIFIED gets a
 * signed attestation (`attestation` = the token, `attestation_id` = its jti). If issuance fails the
 * verdict is left as it is and `attestation_error` carries the error code (spec: /verify/math;
 * routes that need a blocked verdict on failure use trustGate instead).
 */
export function registerAttachHook(app: App, service: AttestationService, recordsCollection: string): void {
  // the audit hook runs after this one (composition root) and appends every verification reply or
  // withholds it: the record can ride in the entry's transaction, one commit per request
  const auditRecords = (ctx: RequestContext) => (ctx.route.tags?.includes(VERIFICATION_TAG) ?? false) && app.service(AUDIT_SERVICES.chain) != null;
  app.hook('onReply', async (ctx, reply): Promise<Reply | void> => {
    if (!ctx.route.tags?.includes(ATTESTABLE_TAG)) return;
    const status = reply.status ?? 200;
    if (status < 200 || status >= 300 || !isPlainObject(reply.body)) return;
    const body = reply.body;
    if (body.status !== 'VERIFIED') return;
    let diagnostic: DiagnosticResult | null = null;
    try {
      diagnostic = reviveDiagnostic({
        status: body.status,
        agent_message: body.agent_message,
        developer_fields: body.developer_fields,
        proof_ref: body.proof_ref,
        admission: body.admission,
      });
    } catch {
      diagnostic = null;
    }
    const deferWrite = auditRecords(ctx);
    const result = diagnostic
      ? await service.issue(diagnostic, { engine: engineOf(ctx), query: queryOf(ctx), org_id: ctx.principal?.orgId ?? null, deferWrite })
      : { is_issued: false as const, error_code: 'VERIFIED_WITHOUT_PROOF' as const, token: null, attestation_id: null, record: undefined };
    if (result.is_issued && result.record) {
      const op: WriteOp = { collection: recordsCollection, key: result.record.id, value: result.record };
      const pending = (ctx.state[AUDIT_WITH_STATE] as WriteOp[] | undefined) ?? [];
      pending.push(op);
      ctx.state[AUDIT_WITH_STATE] = pending;
    }
    if (result.is_issued) return { ...reply, body: { ...body, attestation: result.token, attestation_id: result.attestation_id } };
    ctx.log.warn({ event: 'attestation.not_issued', error_code: result.error_code, route: ctx.routePath }, 'attestation not issued');
    return { ...reply, body: { ...body, attestation_error: result.error_code } };
  });
}
