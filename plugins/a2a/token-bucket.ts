/**
 * Per (sender, receiver) token buckets: step 5 of the trust boundary. Capacity is
 * max_requests_per_minute, refill is capacity/60 tokens per second, a new bucket starts full.
 * Buckets idle for `idleMs` are evicted by a sweep every `sweepEveryMs` on an unref'd timer, so an
 * idle gateway holds no state and the timer never keeps the process alive. The clock is injectable
 * so refill and eviction are tested without waiting.
 */
export type Clock = () => number;

interface Bucket {
  tokens: number;
  /** last refill time, ms */
  at: number;
  /** last time a message of this pair was seen, ms (eviction key) */
  seen: number;
}

export interface TakeResult {
  allowed: boolean;
  /** whole tokens left after this message */
  remaining: number;
  /** seconds until one token is available again (0 when allowed) */
  retryAfterSeconds: number;
}

export interface BucketOptions {
  capacity: number;
  clock?: Clock;
  idleMs?: number;
  sweepEveryMs?: number;
  /**
   * Hard cap on live buckets. A new pair past it is denied (fail closed) rather than evicting a
   * live bucket, because evicting one would hand its pair a fresh, full bucket.
   */
  maxPairs?: number;
}

export class PairBuckets {
  readonly capacity: number;
  private readonly refillPerMs: number;
  private readonly clock: Clock;
  private readonly idleMs: number;
  private readonly sweepEveryMs: number;
  private readonly maxPairs: number;
  private readonly buckets = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | null = null;

  constructor(o: BucketOptions) {
    if (!Number.isInteger(o.capacity) || o.capacity < 1) throw new RangeError('bucket capacity must be a positive integer');
    this.capacity = o.capacity;
    this.refillPerMs = o.capacity / 60 / 1000;
    this.clock = o.clock ?? Date.now;
    this.idleMs = o.idleMs ?? 5 * 60_000;
    this.sweepEveryMs = o.sweepEveryMs ?? 60_000;
    this.maxPairs = o.maxPairs ?? 100_000;
  }

  /** ids cannot hold control characters (schema), so NUL separates them unambiguously */
  static key(sender: string, receiver: string): string {
    return `${sender}\u0000${receiver}`;
  }

  take(sender: string, receiver: string): TakeResult {
    const now = this.clock();
    const key = PairBuckets.key(sender, receiver);
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxPairs && (this.sweep(), this.buckets.size >= this.maxPairs)) {
        return { allowed: false, remaining: 0, retryAfterSeconds: Math.ceil(this.sweepEveryMs / 1000) };
      }
      b = { tokens: this.capacity, at: now, seen: now };
      this.buckets.set(key, b);
    } else {
      // a clock that steps backwards must not mint tokens
      const elapsed = Math.max(0, now - b.at);
      b.tokens = Math.min(this.capacity, b.tokens + elapsed * this.refillPerMs);
      b.at = Math.max(b.at, now);
      b.seen = Math.max(b.seen, now);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    const waitMs = (1 - b.tokens) / this.refillPerMs;
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Evicts buckets idle for at least idleMs; returns how many went. */
  sweep(): number {
    const now = this.clock();
    let evicted = 0;
    for (const [key, b] of this.buckets) {
      if (now - b.seen >= this.idleMs) {
        this.buckets.delete(key);
        evicted++;
      }
    }
    return evicted;
  }

  has(sender: string, receiver: string): boolean {
    return this.buckets.has(PairBuckets.key(sender, receiver));
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Starts the once-a-minute sweep; unref'd so it never holds the process open. */
  start(): NodeJS.Timeout {
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.sweepEveryMs);
      this.timer.unref();
    }
    return this.timer;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
