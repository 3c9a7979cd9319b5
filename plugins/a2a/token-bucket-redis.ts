import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { connectRedis, redisAnswers } from '../../core/store/redis.js';
import { PairBuckets, type Clock, type TakeResult } from './token-bucket.js';

/**
 * The A2A pair token buckets (trust boundary step 5) shared by replicas through Redis, for shared
 * mode (`auth.rate_limit_redis_url`). Same arithmetic as PairBuckets — capacity
 * max_requests_per_minute, refill capacity/60 per second, a new bucket starts full, a clock
 * stepping backwards mints nothing — done by one Lua script, atomically on the server, so two
 * replicas cannot both spend a pair's last token. Idle eviction is Redis expiry (idle 5 minutes).
 * The spec's rules for a shared limiter: Redis unreachable at start-up → the in-process buckets
 * until restart; an error at run time → take() rejects with SharedBucketsUnavailableError and the
 * caller denies the message (fail closed).
 */
export interface PairLimiter {
  readonly kind: 'memory' | 'redis';
  readonly capacity: number;
  /** one token of the pair's bucket in organisation `org` (buckets are per organisation) */
  take(org: string, sender: string, receiver: string): Promise<TakeResult>;
  /** false while the shared server does not answer (/readyz) */
  ready(): boolean;
  close(): Promise<void>;
}

export class SharedBucketsUnavailableError extends Error {
  override readonly name = 'SharedBucketsUnavailableError';
}

const SCRIPT = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then
  tokens = cap
  at = now
else
  local elapsed = now - at
  if elapsed < 0 then elapsed = 0 end
  tokens = math.min(cap, tokens + elapsed * rate)
  if now > at then at = now end
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'a', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {allowed, string.format('%.17g', tokens)}
`;

interface WithScript {
  pgPairTake(numKeys: number, ...args: (string | number)[]): Promise<[number, string]>;
}

export class RedisPairBuckets implements PairLimiter {
  readonly kind = 'redis' as const;
  private readonly refillPerMs: number;

  constructor(
    private readonly client: Redis,
    readonly capacity: number,
    private readonly clock: Clock = Date.now,
    private readonly idleMs = 5 * 60_000,
    private readonly prefix = 'proofgate:a2a:pair:',
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('bucket capacity must be a positive integer');
    this.refillPerMs = capacity / 60 / 1000;
    client.defineCommand('pgPairTake', { lua: SCRIPT });
  }

  async take(org: string, sender: string, receiver: string): Promise<TakeResult> {
    // lengths first: two different (org, sender, receiver) triples can never concatenate to the same key
    const key = `${this.prefix}${org.length}:${org}${sender.length}:${sender}${receiver}`;
    let res: [number, string];
    try {
      res = await (this.client as unknown as WithScript).pgPairTake(1, key, this.capacity, this.refillPerMs, this.clock(), this.idleMs);
    } catch (err) {
      throw new SharedBucketsUnavailableError(`redis pair buckets failed: ${(err as Error).message}`);
    }
    const tokens = Number(res[1]);
    if (res[0] === 1) return { allowed: true, remaining: Math.floor(tokens), retryAfterSeconds: 0 };
    const waitMs = (1 - tokens) / this.refillPerMs;
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  ready(): boolean {
    return redisAnswers(this.client);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

/** PairBuckets behind the same (async) interface: one process, or Redis unavailable at start-up. */
export class LocalPairBuckets implements PairLimiter {
  readonly kind = 'memory' as const;
  constructor(readonly buckets: PairBuckets) {
    buckets.start();
  }
  get capacity(): number {
    return this.buckets.capacity;
  }
  async take(org: string, sender: string, receiver: string): Promise<TakeResult> {
    return this.buckets.take(org, sender, receiver);
  }
  ready(): boolean {
    return true;
  }
  async close(): Promise<void> {
    this.buckets.stop();
  }
}

/**
 * The pair buckets for a configuration: Redis when a URL is set and answers at start-up, else the
 * in-process buckets (logged loudly when Redis was configured but unreachable).
 */
export async function createPairBuckets(
  url: string | null,
  capacity: number,
  log: Logger,
  o: { clock?: Clock; connectTimeoutMs?: number } = {},
): Promise<PairLimiter> {
  const local = () => new LocalPairBuckets(new PairBuckets({ capacity, clock: o.clock }));
  if (!url) return local();
  const client = await connectRedis(url, log, { what: 'A2A pair buckets', timeoutMs: o.connectTimeoutMs });
  if (!client) return local();
  return new RedisPairBuckets(client, capacity, o.clock);
}
