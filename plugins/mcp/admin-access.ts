import { HttpError } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import { isOperator } from '../auth/index.js';
import type { McpServer } from './config.js';
import { McpProblems } from './errors.js';

/**
 * Pins and tool policies are the deployment's, shared by every organisation's agents: approving one (a poisoned one
 * too, with accept_findings), or reading the servers and definitions, is an operator's right
 * (SVC_OPERATOR_USER_IDS), not any tenant's admin:all, as with PATCH /admin/orgs.
 */
export function operatorOnly(app: App, ctx: RequestContext): void {
  if (!isOperator(app, ctx)) throw new HttpError(McpProblems.notOperator, 'only the operators listed in SVC_OPERATOR_USER_IDS may read or approve MCP tool pins and policies');
}

export function serverOf(servers: Map<string, McpServer>, ctx: RequestContext): McpServer {
  const s = servers.get(ctx.params.server);
  if (!s) throw new HttpError(McpProblems.unknownServer, `no MCP server named ${ctx.params.server} is configured`);
  return s;
}
