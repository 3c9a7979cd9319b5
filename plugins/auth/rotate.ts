import { HttpError } from '../../core/errors.js';
import type { App, Principal } from '../../core/types.js';
import { AuthProblems } from './errors.js';
import { creatorRole, settleNewKey } from './creators.js';
import { scopesUnder, type ApiKeyRecord } from './keys.js';
import { isOperatorId } from './operators.js';
import type { AuthDeps } from './routes.js';

/**
 * Whether `p` may rotate `target` (decisions §5, issues 12 and 38): a key may always rotate itself —
 * how a leaked key is replaced without a session. Rotating another key hands the caller that key's
 * new plaintext, i.e. its powers, so it needs `admin:all` and every scope the target has: a weaker
 * key can neither take over a stronger one nor lock its holder out. Scopes are not all of a key's
 * powers: the successor acts for the target's user, with that user's role and, for an operator
 * (`operators`, SVC_OPERATOR_USER_IDS), platform-wide rights no scope names. So another user's key
 * is rotated only by that user or by an operator, who holds every power an organisation user can.
 */
export function rotationRefusal(p: Principal, target: ApiKeyRecord, operators: readonly string[]): string | null {
  if (p.kind !== 'apiKey' || !p.keyId) return 'key rotation needs an API key';
  if (target.id === p.keyId) return null;
  if (!p.scopes.includes('admin:all')) return 'rotating another key needs the admin:all scope';
  const missing = target.scopes.filter((s) => !p.scopes.includes(s));
  if (missing.length) return `rotating this key needs every scope it has; this key lacks ${missing.join(', ')}`;
  if (target.user_id !== p.userId && !isOperatorId(operators, p.userId)) {
    return "this key acts for another user: only that user's own keys or an operator may rotate it";
  }
  return null;
}

/**
 * The caller's authority and the copied role were read before the successor was written; a
 * demotion or deletion written since then may have listed the keys before the successor existed.
 * Re-read both users and answer as if that change had come first: the successor follows its
 * creator (a copy of a key the demotion downgraded is downgraded too), and a caller whose own key
 * the change leaves without the authority to rotate is refused as it would then have been — the
 * successor, whose plaintext nobody got, revoked, and the old key left to the change.
 */
async function settleRotation(d: AuthDeps, p: Principal, old: ApiKeyRecord, made: ApiKeyRecord): Promise<ApiKeyRecord> {
  const { role, record } = await settleNewKey(d, made);
  const callerRole = p.userId === made.user_id ? role : await creatorRole(d.accounts, p.orgId, p.userId);
  const callerScopes = scopesUnder(p.scopes, callerRole);
  const gone = callerScopes === null || record.revoked_at !== null;
  const refusal = gone ? null : rotationRefusal({ ...p, scopes: callerScopes }, old, d.operators);
  if (!gone && !refusal) return record;
  await d.keys.revoke(p.orgId, made.id);
  if (callerScopes === null) throw new HttpError(AuthProblems.invalidApiKey, 'invalid API key');
  if (record.revoked_at !== null) throw new HttpError(AuthProblems.keyNotFound, 'no active API key with this id in your organisation');
  d.events.record(p.orgId, 'auth_failure', { keyId: p.keyId ?? null, detail: `rotation of ${old.id} refused` });
  throw new HttpError(AuthProblems.insufficientScope, refusal!);
}

/**
 * POST /admin/keys/rotate. The new key is a copy of the old record (every field: name, scopes,
 * creating user and role, bindings) with a new secret; the old one is revoked at once. An unknown
 * id, another organisation's key and an already revoked (rotated) key are one 404.
 */
export function registerRotateRoute(app: App, d: AuthDeps): void {
  app.route({
    method: 'POST',
    path: '/admin/keys/rotate',
    auth: 'apiKey',
    scope: 'authenticated',
    schema: { body: 'https://proofgate.dev/schemas/auth/rotate.body.json', response: 'https://proofgate.dev/schemas/auth/rotate.response.json' },
    async handler(ctx) {
      const p = ctx.principal!;
      if (!p.role || !['owner', 'admin', 'member'].includes(p.role)) throw new HttpError(AuthProblems.insufficientScope, 'key rotation needs an organisation role');
      const { key_id } = ctx.body as { key_id: string };
      const old = await d.keys.byId(p.orgId, key_id);
      if (!old || old.revoked_at !== null) throw new HttpError(AuthProblems.keyNotFound, 'no active API key with this id in your organisation');
      const refusal = rotationRefusal(p, old, d.operators);
      if (refusal) {
        d.events.record(p.orgId, 'auth_failure', { keyId: p.keyId ?? null, detail: `rotation of ${old.id} refused` });
        throw new HttpError(AuthProblems.insufficientScope, refusal);
      }
      await d.audit.ready(ctx);
      // create before revoking: a failure in between must not leave the organisation without the key
      const made = await d.keys.successor(old);
      const record = await settleRotation(d, p, old, made.record);
      const key = made.key;
      const revoked = await d.keys.revoke(p.orgId, old.id);
      if (!revoked) {
        // a concurrent rotation or revocation won: this one did not happen
        await d.keys.revoke(p.orgId, record.id);
        throw new HttpError(AuthProblems.keyNotFound, 'no active API key with this id in your organisation');
      }
      d.events.record(p.orgId, 'key_rotated', { keyId: old.id, detail: `replaced by ${record.id}` });
      await d.audit.record(ctx, 'api_key.rotate', `api_key:${old.id}`);
      return {
        status: 201,
        body: { id: record.id, name: record.name, key, created_at: record.created_at, scopes: record.scopes, rotated_from: old.id, revoked_at: revoked.revoked_at },
      };
    },
  });
}
