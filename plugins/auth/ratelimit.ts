import type { BlockList } from 'node:net';
import { HttpError } from '../../core/errors.js';
import type { PreHandlerHook, RequestContext, Tier } from '../../core/types.js';
import { clientIp } from './client-ip.js';
import { AuthProblems } from './errors.js';
import type { SecurityEvents } from './events.js';
import { LimiterUnavailableError, type RateLimiter, type Rule } from './limiter.js';

/** Limits by tier (verification-api.md, Limits); null = unlimited. */
export interface TierLimit {
  perMinute: number;
  perDay: number;
}
export type TierLimits = Record<Tier, TierLimit | null>;
export const TIER_LIMITS: TierLimits = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 600, perDay: 50_000 },
  enterprise: null,
};

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface RateLimitOptions {
  limiter: () => RateLimiter;
  tierLimits: TierLimits;
  anonymousPerMinute: number;
  trustedProxies: BlockList | null;
  now: () => number;
  events: SecurityEvents;
}

/** Anonymous routes under /auth/ (sign-up, sign-in) are limited per client IP. */
export function isAnonymousAuthRoute(ctx: Pick<RequestContext, 'route' | 'routePath'>): boolean {
  return ctx.route.auth === 'none' && ctx.routePath.startsWith('/auth/');
}

function rulesFor(ctx: RequestContext, o: RateLimitOptions): { rules: Rule[]; orgId: string | null } | null {
  if (isAnonymousAuthRoute(ctx)) {
    const ip = clientIp(ctx.ip, ctx.headers, o.trustedProxies);
    return { rules: [{ key: `ip:${ip}:m`, limit: o.anonymousPerMinute, windowMs: MINUTE }], orgId: null };
  }
  const p = ctx.principal;
  if (ctx.route.auth !== 'apiKey' || p?.kind !== 'apiKey' || !p.keyId) return null;
  const lim = o.tierLimits[p.tier ?? 'free'];
  if (!lim) return null;
  return {
    rules: [
      { key: `key:${p.keyId}:m`, limit: lim.perMinute, windowMs: MINUTE },
      { key: `key:${p.keyId}:d`, limit: lim.perDay, windowMs: DAY },
    ],
    orgId: p.orgId,
  };
}

/**
 * onRequest hook: runs after authentication and before the body is read, so a limited client costs
 * no body parsing. RateLimit-* go on every limited response, success or error. When the shared
 * limiter fails at runtime the request is denied with 503 (fail closed: the limit cannot be known,
 * and 429 would wrongly blame the client).
 */
export function rateLimitHook(o: RateLimitOptions): PreHandlerHook {
  return async (ctx) => {
    const sel = rulesFor(ctx, o);
    if (!sel) return;
    let d;
    try {
      d = await o.limiter().consume(sel.rules, o.now());
    } catch (err) {
      if (err instanceof LimiterUnavailableError) {
        ctx.log.error({ err: err.message }, 'rate limiter unavailable: request denied');
        throw new HttpError(AuthProblems.limiterUnavailable, 'the rate limiter is unavailable; retry shortly', { headers: { 'retry-after': '1' } });
      }
      throw err;
    }
    const resetS = Math.max(1, Math.ceil(d.resetMs / 1000));
    ctx.responseHeaders['ratelimit-limit'] = String(d.limit);
    ctx.responseHeaders['ratelimit-remaining'] = String(d.remaining);
    ctx.responseHeaders['ratelimit-reset'] = String(resetS);
    if (!d.allowed) {
      if (sel.orgId) o.events.record(sel.orgId, 'rate_limited', { keyId: ctx.principal?.keyId ?? null, detail: ctx.routePath });
      throw new HttpError(AuthProblems.rateLimited, `rate limit of ${d.limit} requests exceeded; retry in ${resetS} s`, {
        headers: { 'retry-after': String(resetS) },
      });
    }
  };
}
