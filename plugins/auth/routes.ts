import { HttpError, Problems } from '../../core/errors.js';
import type { App, Principal, RequestContext, Scope } from '../../core/types.js';
import { orgNameProblem, publicUser, type Accounts, type User } from './accounts.js';
import { settleNewKey } from './creators.js';
import { AuthProblems } from './errors.js';
import type { SecurityEvents } from './events.js';
import type { UserTokens } from './jwt.js';
import { DEFAULT_SCOPES, PRIVILEGED_SCOPES, publicKey, type ApiKeys } from './keys.js';
import { isOperatorId } from './operators.js';
import { notOwnedMessage, type SenderOwners } from './sender-owners.js';

const S = 'https://proofgate.dev/schemas/auth';

export interface AdminAudit {
  /** throws (503) when an entry could not be written now: called before acting */
  ready(ctx: RequestContext): Promise<void>;
  /**
   * appends the action; a failure after ready() is logged, not thrown, so a done action is not hidden.
   * `subject` names what was acted on as `<kind>:<id>` (`api_key:key_…`, `agent:agt_…`, `attestation:…`).
   */
  record(ctx: RequestContext, action: string, subject?: string): Promise<void>;
}

export interface AuthDeps {
  accounts: Accounts;
  keys: ApiKeys;
  tokens: UserTokens;
  events: SecurityEvents;
  ttlSeconds: number;
  /** the audit chain for administrative actions (no-ops when the audit plugin is not loaded) */
  audit: AdminAudit;
  /** who owns an A2A sender id: a binding is written only by its owner */
  owners: SenderOwners;
  /** SVC_OPERATOR_USER_IDS: a key acting for one holds powers no organisation role gives */
  operators: readonly string[];
}

function principal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new HttpError(AuthProblems.invalidToken, 'not authenticated');
  return ctx.principal;
}

async function session(d: AuthDeps, user: User) {
  return { access_token: await d.tokens.sign(user), token_type: 'bearer', expires_in: d.ttlSeconds, user: publicUser(user) };
}

/** Scopes a caller of `role` may put on a new key: privileged ones only for owners and admins. */
export function grantableScopes(requested: Scope[] | undefined, role: Principal['role']): Scope[] {
  const scopes = requested && requested.length ? [...new Set(requested)] : DEFAULT_SCOPES;
  const privileged = scopes.filter((s) => PRIVILEGED_SCOPES.includes(s));
  if (privileged.length && role !== 'owner' && role !== 'admin') {
    throw new HttpError(AuthProblems.forbiddenScope, `only an owner or admin may grant ${privileged.join(', ')}`);
  }
  return scopes;
}

export function registerAuthRoutes(app: App, d: AuthDeps): void {
  app.route({
    method: 'POST',
    path: '/auth/signup',
    auth: 'none',
    schema: { body: `${S}/signup.body.json`, response: `${S}/session.response.json` },
    async handler(ctx) {
      const b = ctx.body as { email: string; password: string; organization_name: string };
      const bad = orgNameProblem(b.organization_name);
      if (bad) {
        const error = { field: '/body/organization_name', message: bad };
        throw new HttpError(Problems.validation, `${error.field}: ${error.message}`, { errors: [error] });
      }
      const user = await d.accounts.signup(b.email, b.password, b.organization_name);
      // one message whether the email or the organisation name is taken: neither is revealed
      if (!user) throw new HttpError(AuthProblems.conflict, 'the account could not be created with these details');
      return { status: 201, body: await session(d, user) };
    },
  });

  app.route({
    method: 'POST',
    path: '/auth/signin',
    auth: 'none',
    schema: { body: `${S}/signin.body.json`, response: `${S}/session.response.json` },
    async handler(ctx) {
      const b = ctx.body as { email: string; password: string };
      const { ok, user } = await d.accounts.signin(b.email, b.password);
      if (!ok || !user) {
        if (user) d.events.record(user.org_id, 'auth_failure', { detail: 'wrong password' });
        throw new HttpError(AuthProblems.invalidCredentials, 'invalid email or password');
      }
      return { body: await session(d, user) };
    },
  });

  app.route({
    method: 'GET',
    path: '/auth/me',
    auth: 'jwt',
    schema: { response: `${S}/me.response.json` },
    async handler(ctx) {
      const p = principal(ctx);
      const user = await d.accounts.user(p.userId!);
      const org = await d.accounts.org(p.orgId);
      if (!user || !org) throw new HttpError(AuthProblems.invalidToken, 'the account no longer exists');
      return { body: { ...publicUser(user), created_at: user.created_at, organization: { id: org.id, name: org.name, tier: org.tier } } };
    },
  });

  app.route({
    method: 'POST',
    path: '/auth/api-keys',
    auth: 'jwt',
    schema: { body: `${S}/api-key.create.body.json`, response: `${S}/api-key.created.response.json` },
    async handler(ctx) {
      const p = principal(ctx);
      const b = ctx.body as { name: string; scopes?: Scope[]; test?: boolean; a2a_senders?: string[] };
      const allowed = (role: Principal['role']) => {
        const scopes = grantableScopes(b.scopes, role);
        // binding a key to A2A sender ids lets it speak as them: the same authority as a privileged scope
        if (b.a2a_senders?.length && role !== 'owner' && role !== 'admin') {
          throw new HttpError(AuthProblems.forbiddenScope, 'only an owner or admin may bind a key to A2A senders');
        }
        return scopes;
      };
      const scopes = allowed(p.role);
      const notOwned = b.a2a_senders?.length ? await d.owners.notOwned(p.orgId, b.a2a_senders) : [];
      if (notOwned.length) {
        d.events.record(p.orgId, 'auth_failure', { detail: `binding of a key to A2A sender ids not owned refused: ${notOwned.length} id(s)` });
        throw new HttpError(AuthProblems.senderNotOwned, notOwnedMessage(notOwned));
      }
      await d.audit.ready(ctx);
      const { record, key } = await d.keys.create({ orgId: p.orgId, userId: p.userId!, role: p.role ?? 'member', name: b.name, scopes, test: b.test, a2aSenders: b.a2a_senders });
      // p.role was read when the request began; a demotion or deletion written since then may have
      // listed the user's keys before this one existed. Re-read the user and answer as if that change
      // had come first: the same 401 / 403 as then, and the key, whose plaintext nobody got, revoked.
      const now = await settleNewKey(d, record);
      if (now.role === null) throw new HttpError(AuthProblems.invalidToken, 'invalid or expired access token');
      try {
        allowed(now.role);
      } catch (err) {
        if (await d.keys.revoke(p.orgId, record.id)) d.events.record(p.orgId, 'key_revoked', { keyId: record.id, detail: 'creator demoted' });
        throw err;
      }
      await d.audit.record(ctx, 'api_key.create', `api_key:${record.id}`);
      return {
        status: 201,
        body: { id: record.id, name: record.name, key, created_at: record.created_at, scopes: record.scopes, ...(record.a2a_senders ? { a2a_senders: record.a2a_senders } : {}) },
      };
    },
  });

  app.route({
    method: 'GET',
    path: '/auth/api-keys',
    auth: 'jwt',
    schema: { response: `${S}/api-keys.list.response.json` },
    async handler(ctx) {
      const keys = await d.keys.listActive(principal(ctx).orgId);
      return { body: { keys: keys.map(publicKey) } };
    },
  });

  app.route({
    method: 'DELETE',
    path: '/auth/api-keys/:key_id',
    auth: 'jwt',
    bodyType: 'none',
    schema: { params: `${S}/api-key.params.json`, response: `${S}/api-key.revoked.response.json` },
    async handler(ctx) {
      const p = principal(ctx);
      const target = await d.keys.byId(p.orgId, ctx.params.key_id);
      // a member must not lock others (the owner's admin key) out: only owners and admins revoke any key
      if (target && p.role !== 'owner' && p.role !== 'admin' && target.user_id !== p.userId) {
        throw new HttpError(AuthProblems.insufficientScope, 'a member may revoke only the keys it created');
      }
      // nor may an organisation's admin lock the platform operator out (issue 38): the operator's keys
      // are revoked by the operator, or by another operator
      if (target && target.revoked_at === null && target.user_id !== p.userId && isOperatorId(d.operators, target.user_id) && !isOperatorId(d.operators, p.userId)) {
        d.events.record(p.orgId, 'auth_failure', { detail: `revocation of ${target.id} refused: an operator's key` });
        throw new HttpError(AuthProblems.insufficientScope, "only an operator may revoke a platform operator's key");
      }
      await d.audit.ready(ctx);
      const rec = await d.keys.revoke(p.orgId, ctx.params.key_id);
      if (!rec) throw new HttpError(AuthProblems.keyNotFound, 'no active API key with this id in your organisation');
      d.events.record(p.orgId, 'key_revoked', { keyId: rec.id });
      await d.audit.record(ctx, 'api_key.revoke', `api_key:${rec.id}`);
      return { body: { id: rec.id, revoked: true, revoked_at: rec.revoked_at } };
    },
  });
}
