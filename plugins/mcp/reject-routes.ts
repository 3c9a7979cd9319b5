import { repeatedKeyError } from '../../core/http/body.js';
import { HttpError } from '../../core/errors.js';
import type { App } from '../../core/types.js';
import { operatorOnly, serverOf } from './admin-access.js';
import type { McpServer } from './config.js';
import { McpProblems } from './errors.js';
import type { McpMetrics } from './metrics.js';
import { RejectError, Rejections } from './rejections.js';

const S = (f: string) => `https://proofgate.dev/schemas/mcp/${f}.json`;

/**
 * Reject beside approve: the same right (an operator, SVC_OPERATOR_USER_IDS, with an admin:all key),
 * the same hash discipline (the definition reviewed, 409 when the server lists another by now), and
 * refused when it cannot be audited.
 */
export function registerRejectRoutes(app: App, d: { servers: Map<string, McpServer>; metrics: McpMetrics }): void {
  const rejections = new Rejections(app.store);

  app.route({
    method: 'POST',
    path: '/admin/mcp/servers/:server/tools/:tool/reject',
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    bodyLimit: 4096,
    schema: { params: S('tool.params'), body: S('reject.body'), response: S('rejection') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      const s = serverOf(d.servers, ctx);
      const repeated = repeatedKeyError(ctx.rawBody);
      if (repeated) throw repeated;
      const audit = app.service('audit.admin');
      if (audit) await audit.ready(ctx);
      let r;
      try {
        r = await rejections.reject(s.name, ctx.params.tool, (ctx.body as { hash: string }).hash, ctx.principal?.keyId ?? ctx.principal?.userId ?? 'operator');
      } catch (err) {
        if (!(err instanceof RejectError)) throw err;
        throw new HttpError(err.kind === 'unknown' ? McpProblems.toolNotSeen : err.kind === 'stale' ? McpProblems.staleHash : McpProblems.isApproved, err.message);
      }
      if (audit) await audit.record(ctx, 'mcp.pin.reject', `mcp:${s.name}/${ctx.params.tool}`.slice(0, 128));
      d.metrics.pinEvents.inc({ server: s.name, kind: 'rejected' });
      ctx.log.info({ event: 'mcp.rejected', server: s.name, tool: r.rejection.tool, hash: r.rejection.hash }, 'MCP tool definition rejected');
      return { body: { ...r.rejection, pinned_hash: r.pinned_hash } };
    },
  });

  app.route({
    method: 'GET',
    path: '/admin/mcp/servers/:server/rejections',
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    schema: { params: S('server.params'), response: S('rejections.response') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      const s = serverOf(d.servers, ctx);
      return { body: { server: s.name, rejections: await rejections.list(s.name) } };
    },
  });
}
