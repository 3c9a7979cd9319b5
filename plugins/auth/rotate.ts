import { HttpError } from '../../core/errors.js';
import type { App } from '../../core/types.js';
import { AuthProblems } from './errors.js';
import type { AuthDeps } from './routes.js';

/**
 * POST /admin/keys/rotate (decisions §5): any working key of an owner, admin or member may rotate a
 * key of its own organisation — including itself, which is how a leaked key is replaced without a
 * session. The new key keeps the old one's name, scopes and prefix; the old one is revoked at once.
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
      await d.audit.ready(ctx);
      // create before revoking: a failure in between must not leave the organisation without the key
      const { record, key } = await d.keys.create({
        orgId: p.orgId,
        userId: old.user_id,
        role: old.role,
        name: old.name,
        scopes: old.scopes,
        test: old.prefix === 'svc_test_',
        rotatedFrom: old.id,
        a2aSenders: old.a2a_senders,
      });
      const revoked = await d.keys.revoke(p.orgId, old.id);
      if (!revoked) {
        // a concurrent rotation or revocation won: this one did not happen
        await d.keys.revoke(p.orgId, record.id);
        throw new HttpError(AuthProblems.keyNotFound, 'no active API key with this id in your organisation');
      }
      d.events.record(p.orgId, 'key_rotated', { keyId: old.id, detail: `replaced by ${record.id}` });
      await d.audit.record(ctx, 'api_key.rotate');
      return {
        status: 201,
        body: { id: record.id, name: record.name, key, created_at: record.created_at, scopes: record.scopes, rotated_from: old.id, revoked_at: revoked.revoked_at },
      };
    },
  });
}
