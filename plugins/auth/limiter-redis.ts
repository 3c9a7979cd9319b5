import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { connectRedis, redisAnswers } from '../../core/store/redis.js';
import { decide, LimiterUnavailableError, MemoryLimiter, windowStart, type Decision, type RateLimiter, type Rule } from './limiter.js';

/**
 * Shared limiter on Redis: one Lua script reads every bucket of the request and increments them
 * only if all allow it, atomically on the server, so replicas never overshoot a limit together.
 * Commands are never queued while disconnected (enableOfflineQueue: false) and time out quickly:
 * any runtime failure surfaces as LimiterUnavailableError and the request is denied (fail closed).
 */
const SCRIPT = `
local n = #KEYS
local cost = tonumber(ARGV[2 * n + 1])
local counts = {}
for i = 1, n do counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0') end
for i = 1, n do
  if counts[i] + cost > tonumber(ARGV[i]) then return {0, unpack(counts)} end
end
for i = 1, n do
  counts[i] = redis.call('INCRBY', KEYS[i], cost)
  if counts[i] == cost then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
end
return {1, unpack(counts)}
`;

interface WithScript {
  pgConsume(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
}

export class RedisLimiter implements RateLimiter {
  readonly kind = 'redis' as const;
  constructor(
    private readonly client: Redis,
    private readonly prefix = 'proofgate:rl:',
  ) {
    client.defineCommand('pgConsume', { lua: SCRIPT });
  }

  async consume(rules: readonly Rule[], now: number, cost = 1): Promise<Decision> {
    if (rules.length === 0) return decide(rules, [], now, true);
    const keys = rules.map((r) => `${this.prefix}${r.key}:${windowStart(now, r.windowMs)}`);
    // the bucket outlives its window by a second so clock skew between replicas cannot reset it early
    const ttls = rules.map((r) => windowStart(now, r.windowMs) + r.windowMs - now + 1000);
    let res: number[];
    try {
      res = await (this.client as unknown as WithScript).pgConsume(keys.length, ...keys, ...rules.map((r) => r.limit), ...ttls, cost);
    } catch (err) {
      throw new LimiterUnavailableError(`redis rate limiter failed: ${(err as Error).message}`);
    }
    return decide(rules, res.slice(1).map(Number), now, res[0] === 1, cost);
  }

  ready(): boolean {
    return redisAnswers(this.client);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

/**
 * The limiter for a configuration: Redis when a URL is set and reachable at start-up; when it is
 * unreachable then, the in-process limiter until restart (spec: Limits rules), logged loudly.
 */
export async function createLimiter(url: string | null, log: Logger, connectTimeoutMs = 2000): Promise<RateLimiter> {
  if (!url) return new MemoryLimiter();
  const client = await connectRedis(url, log, { what: 'rate-limit', timeoutMs: connectTimeoutMs });
  if (!client) return new MemoryLimiter();
  log.info('rate limits shared through Redis');
  return new RedisLimiter(client);
}
