import type { App, RequestContext } from '../../core/types.js';

/**
 * Operators run the platform (SVC_OPERATOR_USER_IDS): what is shared by every organisation of a
 * deployment (plans, MCP tool pins) changes only through them. An organisation's owner or an
 * admin:all key is not one: admin:all is an organisation's admin scope, not a global right.
 */
export function isOperator(app: App, ctx: RequestContext): boolean {
  const user = ctx.principal?.userId;
  return !!user && app.config.auth.operator_user_ids.includes(user);
}
