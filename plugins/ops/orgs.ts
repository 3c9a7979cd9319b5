import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext, Role } from '../../core/types.js';
import { isOperator, UnknownValueError, type AdminAudit, type OrgAdmin } from '../auth/index.js';
import { OpsProblems } from './errors.js';

const S = 'https://proofgate.dev/schemas/ops';

export { isOperator };

/**
 * PATCH /admin/orgs/{org_id} (scope admin:all, and the key's user an operator): an operator sets any organisation's plan and its users' roles. The
 * route checks every name first (unknown plan or role → 400 naming the allowed ones, a user of
 * another organisation → 400) and changes nothing unless all are valid. The change is recorded in
 * the operator's own organisation's audit chain (`org.update`).
 */
export function registerOrgRoutes(app: App, orgs: () => OrgAdmin): void {
  app.route({
    method: 'PATCH',
    path: '/admin/orgs/:org_id',
    auth: 'apiKey',
    // decisions §5: /admin/* needs admin:all; on top of it the key's user must be an operator
    scope: 'admin:all',
    schema: { params: `${S}/org.params.json`, body: `${S}/org-patch.body.json`, response: `${S}/org-patch.response.json` },
    async handler(ctx) {
      if (!isOperator(app, ctx)) throw new HttpError(OpsProblems.notPlatformOperator, 'only the operators listed in SVC_OPERATOR_USER_IDS may change organisations');
      const o = orgs();
      const orgId = ctx.params.org_id;
      const b = ctx.body as { plan?: string; user_roles?: Record<string, Role> };
      const org = await o.accounts.org(orgId);
      if (!org) throw new HttpError(OpsProblems.orgNotFound, `no organisation ${orgId}`);
      if (b.plan !== undefined && !o.plans.has(b.plan)) {
        throw new HttpError(OpsProblems.unknownValue, `unknown plan ${JSON.stringify(b.plan)}; allowed: ${o.plans.names().join(', ')}`);
      }
      const roles = Object.entries(b.user_roles ?? {});
      const errors = [];
      for (const [userId] of roles) {
        const u = await o.accounts.user(userId);
        if (!u || u.org_id !== orgId) errors.push({ field: `/body/user_roles/${userId}`, message: 'not a user of this organisation' });
      }
      if (errors.length) throw new HttpError(Problems.validation, 'user_roles names users outside this organisation', { errors });
      const audit = app.service('audit.admin');
      await audit?.ready(ctx);
      try {
        if (b.plan !== undefined) await o.setPlan(orgId, b.plan);
        for (const [userId, role] of roles) await o.setRole(orgId, userId, role);
      } catch (err) {
        if (err instanceof UnknownValueError) throw new HttpError(OpsProblems.unknownValue, err.message);
        throw err;
      }
      try {
        await audit?.record(ctx, 'org.update');
      } catch (err) {
        ctx.log.error({ err }, 'organisation updated but not audited');
      }
      const after = (await o.accounts.org(orgId))!;
      const users = await o.accounts.listUsers(orgId);
      return { body: { id: after.id, name: after.name, plan: after.tier, users: users.map((u) => ({ id: u.id, email: u.email, role: u.role })) } };
    },
  });
}
