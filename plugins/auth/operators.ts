import type { App, RequestContext } from '../../core/types.js';

/**
 * Operators run the platform (SVC_OPERATOR_USER_IDS): what is shared by every organisation of a
 * deployment (plans, MCP tool pins) changes only through them. An organisation's owner or an
 * admin:all key is not one: admin:all is an organisation's admin scope, not a global right.
 */
export function isOperator(app: App, ctx: RequestContext): boolean {
  return isOperatorId(app.config.auth.operator_user_ids, ctx.principal?.userId);
}

/**
 * Operator status belongs to a user id, and a key acts for the user who created it: whoever could
 * make a key carry an operator's id (rotating it, re-issuing it) would hold operator powers. Every
 * path that writes a key for a user other than the caller checks this first (issue 38).
 */
export function isOperatorId(operators: readonly string[], userId: string | undefined): boolean {
  return !!userId && operators.includes(userId);
}
