import type { App, Plugin, RequestContext } from '../../core/types.js';
import { Accounts } from './accounts.js';
import { apiKeyAuthenticator, jwtAuthenticator, TierCache } from './authenticators.js';
import { trustedProxyList } from './client-ip.js';
import { SecurityEvents } from './events.js';
import { UserTokens } from './jwt.js';
import { ApiKeys } from './keys.js';
import { MemoryLimiter, type RateLimiter } from './limiter.js';
import { createLimiter } from './limiter-redis.js';
import { rateLimitHook, TIER_LIMITS, type TierLimits } from './ratelimit.js';
import { registerAuthRoutes, type AdminAudit } from './routes.js';
import { registerRotateRoute } from './rotate.js';

/**
 * Tenancy: accounts, user JWTs, API keys, the apiKey and jwt authenticators, rate limits and key
 * rotation. Other plugins reach its runtime pieces through services (`auth.accounts`, `auth.keys`,
 * `security.events`, `auth.limiter`) and its types through this file.
 */
export interface AuthOptions {
  /** replaces the limiter chosen from config (tests) */
  limiter?: RateLimiter;
  tierLimits?: TierLimits;
  /** clock of the rate limiter (tests use a fake one) */
  now?: () => number;
}

export const SERVICES = {
  accounts: 'auth.accounts',
  keys: 'auth.keys',
  events: 'security.events',
  limiter: 'auth.limiter',
  adminAudit: 'audit.admin',
} as const;

export function createAuthPlugin(opts: AuthOptions = {}): Plugin {
  return {
    name: 'auth',
    async register(app: App) {
      const { secrets, auth } = app.config;
      // core/config.ts refuses to start without these; a plugin loaded some other way must not run without them either
      if (!secrets.jwt_secret_key || !secrets.api_key_lookup_secret || secrets.jwt_secret_key === secrets.api_key_lookup_secret) {
        throw new Error('auth: SVC_JWT_SECRET_KEY and SVC_API_KEY_LOOKUP_SECRET must be set and differ');
      }
      const accounts = new Accounts(app.store);
      const keys = new ApiKeys(app.store, secrets.api_key_lookup_secret);
      const tokens = new UserTokens(secrets.jwt_secret_key, auth.jwt_ttl_seconds);
      const events = new SecurityEvents(app.store);
      const tiers = new TierCache(accounts);
      let limiter: RateLimiter = opts.limiter ?? (await createLimiter(auth.rate_limit_redis_url, app.log));
      app.provide(SERVICES.accounts, accounts);
      app.provide(SERVICES.keys, keys);
      app.provide(SERVICES.events, events);
      app.provide(SERVICES.limiter, { get: () => limiter, kind: () => limiter.kind });
      // shared mode: a replica whose shared limiter cannot answer denies limited requests, so it is not ready
      app.readiness('auth.limiter', () => limiter.ready?.() ?? true);

      app.authenticator('apiKey', apiKeyAuthenticator(keys, tiers, events));
      app.authenticator('jwt', jwtAuthenticator(tokens, accounts, tiers));
      app.hook(
        'onRequest',
        rateLimitHook({
          limiter: () => limiter,
          tierLimits: opts.tierLimits ?? TIER_LIMITS,
          anonymousPerMinute: auth.anonymous_rate_per_minute,
          trustedProxies: trustedProxyList(auth.trusted_proxies),
          now: opts.now ?? Date.now,
          events,
        }),
      );

      // the audit plugin registers after this one: resolve its service when a request needs it
      const audit: AdminAudit = {
        async ready(ctx: RequestContext) {
          await app.service<AdminAudit>(SERVICES.adminAudit)?.ready(ctx);
        },
        async record(ctx: RequestContext, action: string) {
          try {
            await app.service<AdminAudit>(SERVICES.adminAudit)?.record(ctx, action);
          } catch (err) {
            ctx.log.error({ err, action }, 'administrative action done but not audited');
          }
        },
      };
      const deps = { accounts, keys, tokens, events, ttlSeconds: auth.jwt_ttl_seconds, audit };
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
export { clientIp, normalizeAddress, trustedProxyList } from './client-ip.js';
export { TIER_LIMITS, type TierLimits } from './ratelimit.js';
export type { AdminAudit } from './routes.js';
