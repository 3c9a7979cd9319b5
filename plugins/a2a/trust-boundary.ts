import { TrustConstraints } from './errors.js';
import type { PayloadType } from './message.js';
import { PairBuckets, type Clock, type TakeResult } from './token-bucket.js';
import type { PairLimiter } from './token-bucket-redis.js';
import { pairKey, type Allowlist } from './trust-config.js';

/**
 * The trust boundary, in the spec's order: (1) sender on the global blocklist, (2) receiver on it,
 * (3) the pair blocked, (4) with default_allow false, the sender not allowlisted for this receiver,
 * payload type and time, (5) the pair's token bucket. The first failing step decides; a bucket is
 * created only once steps 1–4 passed, so refused traffic cannot fill the bucket table.
 */
export type TrustDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; step: 1 | 2 | 3 | 4 | 5; constraintId: string; reason: string; details: Record<string, unknown> };

export interface TrustPolicy {
  blocklist: ReadonlySet<string>;
  blockedPairs: ReadonlySet<string>;
  allowlist: Allowlist;
  defaultAllow: boolean;
  maxRequestsPerMinute: number;
  clock?: Clock;
  /** shared buckets (Redis, shared mode); absent: the in-process buckets of this boundary */
  limiter?: PairLimiter;
}

export class TrustBoundary {
  readonly buckets: PairBuckets;
  private readonly clock: Clock;

  constructor(private readonly p: TrustPolicy) {
    this.clock = p.clock ?? Date.now;
    this.buckets = new PairBuckets({ capacity: p.maxRequestsPerMinute, clock: this.clock });
  }

  /** `orgId`: the caller's organisation, whose buckets and pair cap are charged (in-process buckets) */
  check(orgId: string, sender: string, receiver: string, payloadType: PayloadType): TrustDecision {
    return this.policy(sender, receiver, payloadType) ?? this.bucketDecision(this.buckets.take(orgId, sender, receiver), this.buckets.capacity);
  }

  /** checkShared, synchronous with the in-process buckets (no shared limiter to wait for) */
  decide(orgId: string, sender: string, receiver: string, payloadType: PayloadType): TrustDecision | Promise<TrustDecision> {
    return this.p.limiter ? this.checkShared(orgId, sender, receiver, payloadType) : this.check(orgId, sender, receiver, payloadType);
  }

  /**
   * The same steps with the configured limiter: the shared (Redis) buckets when there are any. A
   * shared limiter that fails at run time denies at step 5 (fail closed, as the plan limits do).
   */
  async checkShared(orgId: string, sender: string, receiver: string, payloadType: PayloadType): Promise<TrustDecision> {
    const limiter = this.p.limiter;
    if (!limiter) return this.check(orgId, sender, receiver, payloadType);
    const refused = this.policy(sender, receiver, payloadType);
    if (refused) return refused;
    try {
      return this.bucketDecision(await limiter.take(orgId, sender, receiver), limiter.capacity);
    } catch {
      return deny(5, TrustConstraints.rateLimited, 'The shared rate limiter is unavailable; the message is refused until it recovers', { limiter: 'unavailable' });
    }
  }

  /** steps 1–4: the first that refuses, or null */
  private policy(sender: string, receiver: string, payloadType: PayloadType): TrustDecision | null {
    if (this.p.blocklist.has(sender)) {
      return deny(1, TrustConstraints.senderBlocklisted, 'Sender agent is on the global blocklist');
    }
    if (this.p.blocklist.has(receiver)) {
      return deny(2, TrustConstraints.receiverBlocklisted, 'Receiver agent is on the global blocklist');
    }
    if (this.p.blockedPairs.has(pairKey(sender, receiver))) {
      return deny(3, TrustConstraints.pairBlocked, 'Sender-receiver pair is blocked');
    }
    if (!this.p.defaultAllow) {
      const miss = this.allowlistMiss(sender, receiver, payloadType);
      if (miss) return deny(4, TrustConstraints.notAllowlisted, miss.reason, { scope: miss.scope });
    }
    return null;
  }

  /** step 5 */
  private bucketDecision(t: TakeResult, capacity: number): TrustDecision {
    if (!t.allowed) {
      return deny(5, TrustConstraints.rateLimited, 'Rate limit exceeded for this sender-receiver pair', {
        limit_per_minute: capacity,
        retry_after_seconds: t.retryAfterSeconds,
      });
    }
    return { allowed: true, remaining: t.remaining };
  }

  /** null when some entry of the sender admits this message; otherwise why the closest one did not */
  private allowlistMiss(sender: string, receiver: string, payloadType: PayloadType): { scope: string; reason: string } | null {
    const entries = this.p.allowlist.get(sender);
    if (!entries) return { scope: 'sender', reason: 'Sender agent is not on the allowlist' };
    const now = this.clock();
    let miss = { scope: 'sender', reason: 'Sender agent is not on the allowlist' };
    for (const e of entries) {
      if (e.validUntil !== null && now >= e.validUntil) miss = { scope: 'expired', reason: 'Allowlist entry of the sender has expired' };
      else if (e.receivers && !e.receivers.has(receiver)) miss = { scope: 'receiver', reason: 'Sender is not allowlisted for this receiver' };
      else if (e.payloadTypes && !e.payloadTypes.has(payloadType)) miss = { scope: 'payload_type', reason: 'Sender is not allowlisted for this payload type' };
      else return null;
    }
    return miss;
  }

  start(): void {
    this.buckets.start();
  }

  close(): void {
    this.buckets.stop();
    void this.p.limiter?.close();
  }
}

function deny(step: 1 | 2 | 3 | 4 | 5, constraintId: string, reason: string, extra: Record<string, unknown> = {}): TrustDecision {
  return { allowed: false, step, constraintId, reason, details: { trust_step: step, constraint_id: constraintId, ...extra } };
}
