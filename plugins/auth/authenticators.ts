import { LRUCache } from 'lru-cache';
import { HttpError } from '../../core/errors.js';
import type { Authenticator, Principal, RequestContext, Tier } from '../../core/types.js';
import type { Accounts } from './accounts.js';
import { AuthProblems } from './errors.js';
import type { SecurityEvents } from './events.js';
import type { UserTokens } from './jwt.js';
import { KEY_FORMAT, KEY_PATTERN, type ApiKeys } from './keys.js';

/**
 * The organisation's plan is needed only to pick rate limits, so it is cached briefly (30 s): a plan
 * set through this process (PATCH /admin/orgs) takes effect at once, one set by the CLI or another
 * replica within that time. Nothing security-relevant is cached — the key record, with its
 * revocation flag, is read from the store on every request. An organisation without a record gets
 * the default plan (whose limits apply to unknown plan names too).
 */
export class TierCache {
  private readonly cache = new LRUCache<string, Tier>({ max: 10_000, ttl: 30_000 });
  /** bumped by every invalidation: a load that read the plan before it must not cache what it read */
  private generation = 0;
  constructor(
    private readonly accounts: Accounts,
    private readonly defaultPlan: Tier = 'free',
  ) {}
  /** the plan itself while cached (no promise, no await on every request), else a promise of it */
  get(orgId: string): Tier | Promise<Tier> {
    return this.cache.get(orgId) ?? this.load(orgId);
  }
  private async load(orgId: string): Promise<Tier> {
    const generation = this.generation;
    const t = (await this.accounts.org(orgId))?.tier ?? this.defaultPlan;
    // a plan set while this read was in flight invalidated the cache before this line: caching the
    // plan read before it would bring the old plan back for 30 s on the replica that set the new one
    if (generation === this.generation) this.cache.set(orgId, t);
    return t;
  }
  invalidate(orgId: string): void {
    this.generation++;
    this.cache.delete(orgId);
  }
  clear(): void {
    this.generation++;
    this.cache.clear();
  }
}

function checkScope(ctx: RequestContext, p: Principal, events: SecurityEvents): void {
  const scope = ctx.route.scope;
  if (!scope || scope === 'authenticated' || p.scopes.includes(scope) || p.scopes.includes('admin:all')) return;
  events.record(p.orgId, 'auth_failure', { keyId: p.keyId ?? null, detail: `missing scope ${scope}` });
  throw new HttpError(AuthProblems.insufficientScope, `this credential lacks the ${scope} scope`);
}

export function apiKeyAuthenticator(keys: ApiKeys, tiers: TierCache, events: SecurityEvents): Authenticator {
  return async (ctx) => {
    const h = ctx.headers['x-api-key'];
    const key = typeof h === 'string' ? h.trim() : '';
    if (!key) throw new HttpError(AuthProblems.invalidApiKey, 'missing X-API-Key header');
    if (!KEY_PATTERN.test(key)) {
      if (key.startsWith('svc_') && !key.startsWith('svc_agent_')) {
        throw new HttpError(AuthProblems.legacyApiKey, 'API keys issued before v7.2 are no longer accepted; issue a new key with POST /auth/api-keys');
      }
      throw new HttpError(AuthProblems.invalidApiKey, 'invalid API key');
    }
    const rec = await keys.lookup(key);
    if (!rec) throw new HttpError(AuthProblems.invalidApiKey, 'invalid API key');
    if (rec.format !== KEY_FORMAT) {
      events.record(rec.org_id, 'auth_failure', { keyId: rec.id, detail: 'pre-v7.2 key' });
      throw new HttpError(AuthProblems.legacyApiKey, 'API keys issued before v7.2 are no longer accepted; issue a new key with POST /auth/api-keys');
    }
    if (rec.revoked_at !== null) {
      events.record(rec.org_id, 'auth_failure', { keyId: rec.id, detail: 'revoked key' });
      throw new HttpError(AuthProblems.invalidApiKey, 'invalid API key');
    }
    const p: Principal = {
      kind: 'apiKey',
      orgId: rec.org_id,
      userId: rec.user_id,
      role: rec.role,
      keyId: rec.id,
      scopes: rec.scopes,
      tier: await tiers.get(rec.org_id),
    };
    if (rec.a2a_senders?.length) p.a2aSenders = rec.a2a_senders;
    // who was refused is known from here on: a scope refusal is recorded against this key (audit onError)
    ctx.principal = p;
    checkScope(ctx, p, events);
    return p;
  };
}

export function jwtAuthenticator(tokens: UserTokens, accounts: Accounts, tiers: TierCache): Authenticator {
  return async (ctx) => {
    const m = /^Bearer\s+(\S+)$/i.exec(ctx.headers.authorization ?? '');
    if (!m) throw new HttpError(AuthProblems.invalidToken, 'missing Authorization: Bearer header');
    let claims;
    try {
      claims = await tokens.verify(m[1]);
    } catch {
      throw new HttpError(AuthProblems.invalidToken, 'invalid or expired access token');
    }
    const user = await accounts.user(claims.sub);
    if (!user || user.org_id !== claims.org_id) throw new HttpError(AuthProblems.invalidToken, 'invalid or expired access token');
    // user JWTs carry no API scopes: JWT routes declare none, and /auth/api-keys grants by role
    return { kind: 'jwt', orgId: user.org_id, userId: user.id, role: user.role, scopes: [], tier: await tiers.get(user.org_id) };
  };
}
