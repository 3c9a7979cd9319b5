/**
 * Per (organisation, sender, receiver) token buckets: step 5 of the trust boundary. The organisation
 * of the caller is part of the key and the pair cap is counted per organisation, so one tenant can
 * neither drain another's buckets nor fill the table against it (issue 12). Capacity is
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
  org: string;
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
   * Hard cap on live buckets of one organisation. A new pair past it is denied (fail closed) rather than evicting a
   * live bucket, because evicting one would hand its pair a fresh, full bucket.
   */
  maxPairs?: number;
  /** the interval timer of the sweep (tests pass one they fire by hand) */
  timers?: { setInterval: typeof setInterval; clearInterval: typeof clearInterval };
}

export class PairBuckets {
  readonly capacity: number;
  private readonly refillPerMs: number;
  private readonly clock: Clock;
  private readonly idleMs: number;
  private readonly sweepEveryMs: number;
  private readonly maxPairs: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly perOrg = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly timers: NonNullable<BucketOptions['timers']>;

  constructor(o: BucketOptions) {
    if (!Number.isInteger(o.capacity) || o.capacity < 1) throw new RangeError('bucket capacity must be a positive integer');
    this.capacity = o.capacity;
    this.refillPerMs = o.capacity / 60 / 1000;
    this.clock = o.clock ?? Date.now;
    this.idleMs = o.idleMs ?? 5 * 60_000;
    this.sweepEveryMs = o.sweepEveryMs ?? 60_000;
    this.maxPairs = o.maxPairs ?? 100_000;
    this.timers = o.timers ?? { setInterval, clearInterval };
  }

  /** ids cannot hold control characters (schema; organisation ids are generated), so NUL separates them unambiguously */
  static key(org: string, sender: string, receiver: string): string {
    return `${org}\u0000${sender}\u0000${receiver}`;
  }

  take(org: string, sender: string, receiver: string): TakeResult {
    const now = this.clock();
    const key = PairBuckets.key(org, sender, receiver);
    let b = this.buckets.get(key);
    if (!b) {
      if (this.sizeOf(org) >= this.maxPairs && (this.sweep(), this.sizeOf(org) >= this.maxPairs)) {
        return { allowed: false, remaining: 0, retryAfterSeconds: Math.ceil(this.sweepEveryMs / 1000) };
      }
      b = { tokens: this.capacity, at: now, seen: now, org };
      this.buckets.set(key, b);
      this.perOrg.set(org, this.sizeOf(org) + 1);
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
        const left = this.sizeOf(b.org) - 1;
        if (left > 0) this.perOrg.set(b.org, left);
        else this.perOrg.delete(b.org);
        evicted++;
      }
    }
    return evicted;
  }

  has(org: string, sender: string, receiver: string): boolean {
    return this.buckets.has(PairBuckets.key(org, sender, receiver));
  }

  /** live buckets of one organisation (what its pair cap counts) */
  sizeOf(org: string): number {
    return this.perOrg.get(org) ?? 0;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Starts the once-a-minute sweep; unref'd so it never holds the process open. */
  start(): NodeJS.Timeout {
    if (!this.timer) {
      this.timer = this.timers.setInterval(() => this.sweep(), this.sweepEveryMs);
      this.timer.unref();
    }
    return this.timer;
  }

  stop(): void {
    if (this.timer) this.timers.clearInterval(this.timer);
    this.timer = null;
  }
}
