import type { App, Reply } from '../../core/types.js';
import { diagnosticProblem } from '../../core/verdict.js';
import type { WriteOp } from '../../core/store/store.js';
import { AUDIT_SERVICES, AUDIT_SLOTS } from '../audit/index.js';
import type { AttestationService } from './types.js';

/**
 * The seal phase (routes declared `verification: { attest: true }`): a 2xx JSON reply whose verdict
 * is VERIFIED gets a signed attestation (`attestation` = the token, `attestation_id` = its jti). If
 * issuance fails the verdict is left as it is and `attestation_error` carries the error code (spec:
 * /verify/math; routes that need a blocked verdict on failure use trustGate instead).
 */
export function registerAttachHook(app: App, service: AttestationService, recordsCollection: string): void {
  // the kernel runs the record phase after this one, on every verification reply: with the audit
  // chain there, the record rides in the entry's transaction (one commit per request), and a reply
  // whose entry cannot be written is withheld together with it
  const auditRecords = () => app.service(AUDIT_SERVICES.chain) != null;
  app.phase('seal', async (ctx, reply): Promise<Reply | void> => {
    const status = reply.status ?? 200;
    const verdict = reply.verdict;
    if (status < 200 || status >= 300 || verdict?.status !== 'VERIFIED') return;
    const subject = reply.subject;
    if (!subject) {
      // a route declared to attest names what it verified; without it there is nothing to bind
      ctx.log.error({ route: ctx.routePath }, 'attestable route replied without a subject');
    }
    const deferWrite = auditRecords();
    const result = subject && diagnosticProblem(verdict) === null
      ? await service.issue(verdict, { engine: subject.engine, query: subject.query, org_id: ctx.principal?.orgId ?? null, deferWrite })
      : { is_issued: false as const, error_code: 'VERIFIED_WITHOUT_PROOF' as const, token: null, attestation_id: null, record: undefined };
    if (result.is_issued && result.record) {
      const op: WriteOp = { collection: recordsCollection, key: result.record.id, value: result.record };
      ctx.set(AUDIT_SLOTS.with, [...(ctx.get(AUDIT_SLOTS.with) ?? []), op]);
    }
    // endpoint fields beside the verdict: the kernel renders them into the wire body
    const fields = reply.body && typeof reply.body === 'object' && !Array.isArray(reply.body) ? (reply.body as Record<string, unknown>) : {};
    if (result.is_issued) return { ...reply, body: { ...fields, attestation: result.token, attestation_id: result.attestation_id } };
    ctx.log.warn({ event: 'attestation.not_issued', error_code: result.error_code, route: ctx.routePath }, 'attestation not issued');
    return { ...reply, body: { ...fields, attestation_error: result.error_code } };
  });
}
