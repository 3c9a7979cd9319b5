import { repeatedKeyError } from '../../core/http/body.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import type { AdminAudit } from '../auth/index.js';
import type { McpServer } from './config.js';
import type { McpMetrics } from './metrics.js';
import { parsePolicy, type Policies } from './policy.js';
import { operatorOnly, serverOf } from './admin-access.js';

const S = (f: string) => `https://proofgate.dev/schemas/mcp/${f}.json`;
const PATH = '/admin/mcp/servers/:server/policy';
/** 64 rules of 128-character patterns with every condition fit in well under this */
const POLICY_BODY_BYTES = 32 * 1024;

interface PolicyRouteDeps {
  servers: Map<string, McpServer>;
  policy: Policies;
  metrics: McpMetrics;
}

/**
 * The operator's hand on each server's tool policy (policy.ts): read the one in force, replace it,
 * or drop the replacement so the configuration's holds again. The same right as approving a pin
 * (an operator's, SVC_OPERATOR_USER_IDS, with an admin:all key): a policy admits tools for every
 * organisation's agents. A change is refused when it cannot be audited, and holds on every replica
 * from the next request on (it lives in the shared store).
 */
export function registerPolicyRoutes(app: App, d: PolicyRouteDeps): void {
  const audited = async (ctx: RequestContext, action: string, server: string, change: () => Promise<unknown>) => {
    const audit = app.service('audit.admin');
    if (audit) await audit.ready(ctx);
    const out = await change();
    if (audit) await audit.record(ctx, action, server);
    ctx.log.info({ event: action, server }, 'MCP server tool policy changed');
    return out;
  };

  app.route({
    method: 'GET',
    path: PATH,
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    schema: { params: S('server.params'), response: S('policy.response') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      return { body: await d.policy.view(serverOf(d.servers, ctx).name) };
    },
  });

  app.route({
    method: 'PUT',
    path: PATH,
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    bodyLimit: POLICY_BODY_BYTES,
    schema: { params: S('server.params'), body: S('policy.body'), response: S('policy.response') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      const s = serverOf(d.servers, ctx);
      // a member named twice reads one way to the operator's tooling and another here: neither is stored
      const repeated = repeatedKeyError(ctx.rawBody);
      if (repeated) throw repeated;
      let policy;
      try {
        // the schema checked the shape; this is the same check the configuration passes, one place for both
        policy = parsePolicy(ctx.body, 'policy');
      } catch (err) {
        throw new HttpError(Problems.validation, (err as Error).message, { errors: [{ field: '/body', message: (err as Error).message }] });
      }
      const by = ctx.principal?.keyId ?? ctx.principal?.userId ?? 'operator';
      const view = await audited(ctx, 'mcp.policy.update', s.name, () => d.policy.set(s.name, policy, by));
      d.metrics.pinEvents.inc({ server: s.name, kind: 'policy_updated' });
      return { body: view };
    },
  });

  app.route({
    method: 'DELETE',
    path: PATH,
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    bodyType: 'none',
    schema: { params: S('server.params'), response: S('policy.response') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      const s = serverOf(d.servers, ctx);
      const view = await audited(ctx, 'mcp.policy.reset', s.name, () => d.policy.reset(s.name));
      d.metrics.pinEvents.inc({ server: s.name, kind: 'policy_reset' });
      return { body: view };
    },
  });
}
