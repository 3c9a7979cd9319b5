import type { App, Plugin, RequestContext } from '../../core/types.js';
import { Accounts } from './accounts.js';
import { apiKeyAuthenticator, jwtAuthenticator, TierCache } from './authenticators.js';
import { trustedProxyList } from './client-ip.js';
import { SecurityEvents } from './events.js';
import { UserTokens } from './jwt.js';
import { ApiKeys } from './keys.js';
import { MemoryLimiter, type RateLimiter } from './limiter.js';
import { createLimiter } from './limiter-redis.js';
import { HttpError } from '../../core/errors.js';
import { AuthProblems } from './errors.js';
import { defaultPlanOf, OrgAdmin, signupOpen } from './org-admin.js';
import { Plans, rateCharger, rateLimitHook, type RateCharger, type RateLimitOptions, type TierLimits } from './ratelimit.js';
import { registerAuthRoutes, type AdminAudit } from './routes.js';
import { registerRotateRoute } from './rotate.js';
import { SenderOwners } from './sender-owners.js';

/**
 * Tenancy: accounts, user JWTs, API keys, the apiKey and jwt authenticators, rate limits and key
 * rotation. Other plugins reach its runtime pieces through services (`auth.accounts`, `auth.keys`,
 * `security.events`, `auth.limiter`) and its types through this file.
 */
export interface AuthOptions {
  /** replaces the limiter chosen from config (tests) */
  limiter?: RateLimiter;
  /** replaces config limits.plans (legacy shape: perMinute/perDay) */
  tierLimits?: TierLimits;
  /** clock of the rate limiter (tests use a fake one) */
  now?: () => number;
}

export const SERVICES = {
  accounts: 'auth.accounts',
  keys: 'auth.keys',
  events: 'security.events',
  limiter: 'auth.limiter',
  /** Plans in force (mutable: the bootstrap file may add plans before serving) */
  plans: 'auth.plans',
  /** OrgAdmin: set an organisation's plan, a user's role */
  orgs: 'auth.orgs',
  /** RateCharger: charge extra units (a batch's items) to the caller's organisation */
  ratelimit: 'auth.ratelimit',
  /** SenderOwners: which organisation owns an A2A sender id (sources added by the agents and a2a plugins) */
  senderOwners: 'auth.sender_owners',
} as const;

declare module '../../core/types.js' {
  interface Services {
    'auth.accounts': Accounts;
    'auth.keys': ApiKeys;
    'security.events': SecurityEvents;
    'auth.limiter': { get(): RateLimiter; kind(): string };
    'auth.plans': Plans;
    'auth.orgs': OrgAdmin;
    'auth.ratelimit': RateCharger;
    'auth.sender_owners': SenderOwners;
  }
}

export function createAuthPlugin(opts: AuthOptions = {}): Plugin {
  return {
    name: 'auth',
    provides: Object.values(SERVICES),
    // the plans a bootstrap file adds to the configuration are read as this plugin registers
    optional: ['provision.bootstrap'],
    late: ['audit.admin'],
    async register(app: App) {
      const { secrets, auth } = app.config;
      // core/config.ts refuses to start without these; a plugin loaded some other way must not run without them either
      if (!secrets.jwt_secret_key || !secrets.api_key_lookup_secret || secrets.jwt_secret_key === secrets.api_key_lookup_secret) {
        throw new Error('auth: SVC_JWT_SECRET_KEY and SVC_API_KEY_LOOKUP_SECRET must be set and differ');
      }
      const defaultPlan = defaultPlanOf(app.config);
      const plans = opts.tierLimits ? Plans.fromTierLimits(opts.tierLimits, defaultPlan) : new Plans(app.config.limits.plans, defaultPlan);
      const accounts = new Accounts(app.store, defaultPlan);
      const keys = new ApiKeys(app.store, secrets.api_key_lookup_secret);
      const tokens = new UserTokens(secrets.jwt_secret_key, auth.jwt_ttl_seconds);
      const events = new SecurityEvents(app.store);
      const retention = auth.security_events_retention_days;
      if (retention !== null) {
        const sweep = async () => {
          const removed = await events.prune(retention);
          if (removed) app.log.info({ removed, retention_days: retention }, 'auth: security events past retention removed');
        };
        app.every(3_600_000, sweep, { atStart: true, onError: (err) => app.log.error({ err }, 'auth: security event retention failed; the next sweep tries again') });
      }
      const tiers = new TierCache(accounts, defaultPlan);
      let limiter: RateLimiter = opts.limiter ?? (await createLimiter(auth.rate_limit_redis_url, app.log));
      app.provide(SERVICES.accounts, accounts);
      app.provide(SERVICES.keys, keys);
      app.provide(SERVICES.events, events);
      app.provide(SERVICES.limiter, { get: () => limiter, kind: () => limiter.kind });
      app.provide(SERVICES.plans, plans);
      app.provide(SERVICES.orgs, new OrgAdmin(accounts, plans, tiers, keys, events));
      const owners = new SenderOwners();
      app.provide(SERVICES.senderOwners, owners);
      // shared mode: a replica whose shared limiter cannot answer denies limited requests, so it is not ready
      app.readiness('auth.limiter', () => limiter.ready?.() ?? true);

      app.authenticator('apiKey', apiKeyAuthenticator(keys, tiers, events), (ctx) => ctx.headers['x-api-key'] !== undefined);
      app.authenticator('jwt', jwtAuthenticator(tokens, accounts, tiers));
      const limited = app.metrics.counter('svc_rate_limited_total', 'Requests refused with 429 by a rate limit, by kind (anonymous per IP, plan per organisation)', ['kind']);
      const rl: RateLimitOptions = {
        limiter: () => limiter,
        plans,
        planOf: (orgId) => tiers.get(orgId),
        anonymousPerMinute: auth.anonymous_rate_per_minute,
        trustedProxies: trustedProxyList(auth.trusted_proxies),
        now: opts.now ?? Date.now,
        events,
        onLimited: (kind) => limited.inc({ kind }),
      };
      app.phase('gate', rateLimitHook(rl));
      app.provide(SERVICES.ratelimit, rateCharger(rl));
      if (!signupOpen(app.config)) {
        app.phase('gate', (ctx) => {
          if (ctx.routePath === '/auth/signup') throw new HttpError(AuthProblems.signupClosed, 'sign-up is closed on this server; an operator provisions organisations (SVC_BOOTSTRAP_FILE)');
        });
      }

      // the audit plugin registers after this one: resolve its service when a request needs it
      const audit: AdminAudit = {
        async ready(ctx: RequestContext) {
          await app.service('audit.admin')?.ready(ctx);
        },
        async record(ctx: RequestContext, action: string, subject?: string) {
          try {
            await app.service('audit.admin')?.record(ctx, action, subject);
          } catch (err) {
            ctx.log.error({ err, action }, 'administrative action done but not audited');
          }
        },
      };
      const deps = { accounts, keys, tokens, events, ttlSeconds: auth.jwt_ttl_seconds, audit, owners, operators: auth.operator_user_ids };
      registerAuthRoutes(app, deps);
      registerRotateRoute(app, deps);

      app.onClose(async () => {
        await events.flush();
        await limiter.close();
        limiter = new MemoryLimiter();
      });
    },
  };
}

export default createAuthPlugin();

export { Accounts, newId, type Organization, type User } from './accounts.js';
export { ApiKeys, KEY_FORMAT, KEY_PATTERN, DEFAULT_SCOPES, type ApiKeyRecord } from './keys.js';
export { SecurityEvents, EVENTS_COLLECTION, type SecurityEvent, type SecurityEventType } from './events.js';
export { MemoryLimiter, LimiterUnavailableError, type RateLimiter, type Rule, type Decision } from './limiter.js';
export { RedisLimiter, createLimiter } from './limiter-redis.js';
export { clientIp, normalizeAddress, rateSubject, trustedProxyList } from './client-ip.js';
export { isOperator, isOperatorId } from './operators.js';
export { SenderOwners, notOwnedMessage, type OwnerSource } from './sender-owners.js';
export { TIER_LIMITS, DEFAULT_PLANS, Plans, type TierLimits, type RateCharger } from './ratelimit.js';
export { provisionApiKey, revokeUndeclaredKeys, type DeclaredKey, type KeyOutcome } from './provision.js';
export { hashPassword, type PasswordHash } from './passwords.js';
export { OrgAdmin, UnknownValueError, defaultPlanOf, provisionedPlanOf, signupOpen } from './org-admin.js';
export { ROLES } from './accounts.js';
export { creatorChanged } from './creators.js';
export type { AdminAudit } from './routes.js';
export { KEY_COLLECTIONS } from './keys.js';
