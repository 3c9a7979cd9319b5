/**
 * Rate limiting as an interface with two implementations: in-process (this file) and Redis
 * (limiter-redis.ts), chosen by config.auth.rate_limit_redis_url. Windows are fixed (minute, day)
 * and aligned on the epoch, so replicas sharing Redis agree on window boundaries. A request is
 * checked against every rule at once and counted only when all of them allow it, so a request
 * refused by the minute limit does not use up the day's quota.
 */
export interface Rule {
  /** bucket identity, e.g. `key:<id>:min` */
  key: string;
  limit: number;
  windowMs: number;
}

export interface Decision {
  allowed: boolean;
  /** the rule with the fewest remaining requests (the one that denied, if denied) */
  limit: number;
  remaining: number;
  /** ms until that rule's window resets */
  resetMs: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** counts `cost` units (default 1) in every rule, only when each has that many left */
  consume(rules: readonly Rule[], now: number, cost?: number): Promise<Decision>;
  close(): Promise<void>;
  /** false while a shared limiter's server does not answer (/readyz); absent = always ready */
  ready?(): boolean;
}

/** Thrown by a shared limiter whose store fails at runtime: the caller denies (fail closed). */
export class LimiterUnavailableError extends Error {
  override readonly name = 'LimiterUnavailableError';
}

export function windowStart(now: number, windowMs: number): number {
  return Math.floor(now / windowMs) * windowMs;
}

/**
 * Combines per-rule counts into one decision. `counts` are the counts after this request when it is
 * allowed, the current counts when it is denied. A denial reports the exhausted rule that resets
 * last (that is when a retry can succeed); an allowance reports the rule with the least room.
 */
export function decide(rules: readonly Rule[], counts: readonly number[], now: number, allowed: boolean, cost = 1): Decision {
  const all = rules.map((r, i) => ({
    allowed,
    limit: r.limit,
    remaining: Math.max(0, r.limit - counts[i]),
    resetMs: windowStart(now, r.windowMs) + r.windowMs - now,
    // denied: the rules without room for `cost` more units
    exhausted: counts[i] + cost > r.limit,
  }));
  if (all.length === 0) return { allowed: true, limit: 0, remaining: 0, resetMs: 0 };
  const pool = allowed ? all : all.filter((d) => d.exhausted);
  pool.sort((a, b) => (allowed ? a.remaining - b.remaining || a.resetMs - b.resetMs : b.resetMs - a.resetMs));
  const { exhausted: _unused, ...best } = pool[0];
  return best;
}

interface Counter {
  window: number;
  windowMs: number;
  count: number;
}

/**
 * Single-process limiter. consume() has no await between reading and writing a counter, so
 * concurrent requests cannot both take the last slot. Memory is bounded: past `maxKeys` counters,
 * expired windows are swept, then the oldest-touched counters are evicted (an evicted counter
 * restarts at zero — the bound on memory wins over exactness for the least recently active keys).
 *
 * The bound applies per class of key (what comes before the first `:`, `ip` or `org`), each class
 * evicting only among its own counters: anonymous requests make one `ip:` counter per client
 * address, and an IPv6 client holds a /64 of addresses, so with one shared bound a spray of
 * sign-in attempts evicted — reset — the organisations' plan quotas.
 */
export class MemoryLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  private readonly classes = new Map<string, Map<string, Counter>>();

  constructor(private readonly maxKeys = 100_000) {}

  private counters(key: string): Map<string, Counter> {
    const i = key.indexOf(':');
    const cls = i === -1 ? '' : key.slice(0, i);
    let m = this.classes.get(cls);
    if (!m) this.classes.set(cls, (m = new Map()));
    return m;
  }

  async consume(rules: readonly Rule[], now: number, cost = 1): Promise<Decision> {
    const maps = rules.map((r) => this.counters(r.key));
    const current = rules.map((r, i) => {
      const w = windowStart(now, r.windowMs);
      const c = maps[i].get(r.key);
      return c && c.window === w ? c.count : 0;
    });
    const allowed = rules.every((r, i) => current[i] + cost <= r.limit);
    if (!allowed) return decide(rules, current, now, false, cost);
    rules.forEach((r, i) => {
      // delete + set moves the key to the end of the Map's order: iteration order = least recently used first
      maps[i].delete(r.key);
      maps[i].set(r.key, { window: windowStart(now, r.windowMs), windowMs: r.windowMs, count: current[i] + cost });
    });
    for (const m of new Set(maps)) if (m.size > this.maxKeys) this.evict(m, now);
    return decide(rules, current.map((c) => c + cost), now, true);
  }

  private evict(counters: Map<string, Counter>, now: number): void {
    for (const [k, c] of counters) if (c.window + c.windowMs <= now) counters.delete(k);
    // evict down to 90% so a full map does not sweep on every new key
    const target = Math.floor(this.maxKeys * 0.9);
    for (const k of counters.keys()) {
      if (counters.size <= target) break;
      counters.delete(k);
    }
  }

  /** counters held, all classes together */
  get size(): number {
    let n = 0;
    for (const m of this.classes.values()) n += m.size;
    return n;
  }

  async close(): Promise<void> {
    this.classes.clear();
  }
}
