import type { BlockList } from 'node:net';
import type { PlanLimit } from '../../core/config.js';
import { HttpError } from '../../core/errors.js';
import type { Phases, RequestContext, Tier } from '../../core/types.js';
import { clientIp, rateSubject } from './client-ip.js';
import { AuthProblems } from './errors.js';
import type { SecurityEvents } from './events.js';
import { LimiterUnavailableError, type RateLimiter, type Rule } from './limiter.js';

/** The spec's plans (verification-api.md, Limits) and `unlimited`; config limits.plans overrides or adds. */
export const DEFAULT_PLANS: Readonly<Record<string, PlanLimit | null>> = {
  free: { per_minute: 60, per_day: 1_000 },
  pro: { per_minute: 600, per_day: 50_000 },
  enterprise: null,
  unlimited: null,
};

/** Legacy shape kept for callers of createAuthPlugin({ tierLimits }). */
export interface TierLimit {
  perMinute: number;
  perDay: number;
}
export type TierLimits = Record<string, TierLimit | null>;
export const TIER_LIMITS: TierLimits = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 600, perDay: 50_000 },
  enterprise: null,
};

/**
 * The plans in force: built-in defaults ← config limits.plans ← bootstrap file. A plan name an
 * organisation carries but that no longer exists gets the `free` plan's limits (fail closed: a
 * removed plan must not turn into the default, which may be unlimited on a sidecar).
 */
export class Plans {
  private readonly plans = new Map<string, PlanLimit | null>();
  constructor(
    configured: Record<string, PlanLimit | null>,
    readonly defaultPlan: string,
  ) {
    for (const [k, v] of Object.entries({ ...DEFAULT_PLANS, ...configured })) this.plans.set(k, v);
    if (!this.plans.has(defaultPlan)) throw new Error(`default plan ${JSON.stringify(defaultPlan)} is not defined; defined: ${this.names().join(', ')}`);
  }
  static fromTierLimits(t: TierLimits, defaultPlan: string): Plans {
    const conv = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v ? { per_minute: v.perMinute, per_day: v.perDay } : null]));
    return new Plans(conv, defaultPlan);
  }
  names(): string[] {
    return [...this.plans.keys()];
  }
  has(name: string): boolean {
    return this.plans.has(name);
  }
  limits(name: string | undefined): PlanLimit | null {
    if (name !== undefined && this.plans.has(name)) return this.plans.get(name)!;
    return this.plans.has('free') ? this.plans.get('free')! : DEFAULT_PLANS.free;
  }
  toJSON(): Record<string, PlanLimit | null> {
    return Object.fromEntries(this.plans);
  }
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface RateLimitOptions {
  limiter: () => RateLimiter;
  plans: Plans;
  /** the organisation's plan name (cached briefly) */
  planOf: (orgId: string) => Tier | Promise<Tier>;
  anonymousPerMinute: number;
  trustedProxies: BlockList | null;
  now: () => number;
  events: SecurityEvents;
  /** counts refusals (svc_rate_limited_total) */
  onLimited?: (kind: 'anonymous' | 'plan') => void;
}

/** Anonymous routes under /auth/ (sign-up, sign-in) are limited per client IP. */
export function isAnonymousAuthRoute(ctx: Pick<RequestContext, 'route' | 'routePath'>): boolean {
  return ctx.route.auth === 'none' && ctx.routePath.startsWith('/auth/');
}

/**
 * Buckets are per organisation: a plan is bought by an organisation, so a second key or an agent
 * token must not multiply it. Every credential that names an organisation (API key, agent token)
 * is counted; user JWTs only reach account management routes and are not.
 */
async function orgRules(orgId: string, o: RateLimitOptions): Promise<Rule[] | null> {
  const lim = o.plans.limits(await o.planOf(orgId));
  if (!lim) return null;
  const rules: Rule[] = [];
  if (lim.per_minute !== null) rules.push({ key: `org:${orgId}:m`, limit: lim.per_minute, windowMs: MINUTE });
  if (lim.per_day !== null) rules.push({ key: `org:${orgId}:d`, limit: lim.per_day, windowMs: DAY });
  return rules.length ? rules : null;
}

async function rulesFor(ctx: RequestContext, o: RateLimitOptions): Promise<{ rules: Rule[]; orgId: string | null } | null> {
  if (isAnonymousAuthRoute(ctx)) {
    const ip = clientIp(ctx.ip, ctx.headers, o.trustedProxies);
    return { rules: [{ key: `ip:${rateSubject(ip)}:m`, limit: o.anonymousPerMinute, windowMs: MINUTE }], orgId: null };
  }
  const p = ctx.principal;
  if (!p || (p.kind !== 'apiKey' && p.kind !== 'agentToken')) return null;
  const rules = await orgRules(p.orgId, o);
  return rules ? { rules, orgId: p.orgId } : null;
}

async function consume(ctx: RequestContext, o: RateLimitOptions, sel: { rules: Rule[]; orgId: string | null }, units: number): Promise<void> {
  let d;
  try {
    d = await o.limiter().consume(sel.rules, o.now(), units);
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
    o.onLimited?.(sel.orgId ? 'plan' : 'anonymous');
    if (sel.orgId) o.events.record(sel.orgId, 'rate_limited', { keyId: ctx.principal?.keyId ?? null, detail: ctx.routePath });
    const what = units > 1 ? `${units} units exceed the ${d.remaining} left of the limit of ${d.limit}` : `rate limit of ${d.limit} requests exceeded`;
    throw new HttpError(AuthProblems.rateLimited, `${what}; retry in ${resetS} s`, { headers: { 'retry-after': String(resetS) } });
  }
}

/**
 * gate phase: runs after authentication and before the body is read, so a limited client costs
 * no body parsing. RateLimit-* go on every limited response, success or error. When the shared
 * limiter fails at runtime the request is denied with 503 (fail closed: the limit cannot be known,
 * and 429 would wrongly blame the client).
 */
export function rateLimitHook(o: RateLimitOptions): Phases['gate'] {
  return async (ctx) => {
    const sel = await rulesFor(ctx, o);
    if (sel) await consume(ctx, o, sel, 1);
  };
}

/**
 * Service `auth.ratelimit`: charges more units to the caller's organisation than the one its request
 * already cost (a batch of n items costs n). All or nothing: when fewer units are left the call
 * throws 429 and nothing is counted, so the handler does no work.
 */
export interface RateCharger {
  charge(ctx: RequestContext, units: number): Promise<void>;
}

export function rateCharger(o: RateLimitOptions): RateCharger {
  return {
    async charge(ctx, units) {
      if (units <= 0) return;
      const p = ctx.principal;
      if (!p || (p.kind !== 'apiKey' && p.kind !== 'agentToken')) return;
      const rules = await orgRules(p.orgId, o);
      if (!rules) return;
      // n in all, with the unit the request paid on arrival. More than a window's whole limit is
      // never granted, and a 429's Retry-After would send the client back for ever: a cap, 413
      const n = units + 1;
      const cap = rules.find((r) => n > r.limit);
      if (cap) {
        const per = cap.windowMs === MINUTE ? 'minute' : 'day';
        throw new HttpError(AuthProblems.planLimitExceeded, `this request needs ${n} units and the plan allows ${cap.limit} per ${per}: it can never be granted; send at most ${cap.limit} items in one request`);
      }
      await consume(ctx, o, { rules, orgId: p.orgId }, units);
    },
  };
}
