import { TrustConstraints } from './errors.js';
import type { PayloadType } from './message.js';
import { PairBuckets, type Clock } from './token-bucket.js';
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
}

export class TrustBoundary {
  readonly buckets: PairBuckets;
  private readonly clock: Clock;

  constructor(private readonly p: TrustPolicy) {
    this.clock = p.clock ?? Date.now;
    this.buckets = new PairBuckets({ capacity: p.maxRequestsPerMinute, clock: this.clock });
  }

  /** `orgId`: the caller's organisation, whose buckets and pair cap are charged */
  check(orgId: string, sender: string, receiver: string, payloadType: PayloadType): TrustDecision {
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
    const t = this.buckets.take(orgId, sender, receiver);
    if (!t.allowed) {
      return deny(5, TrustConstraints.rateLimited, 'Rate limit exceeded for this sender-receiver pair', {
        limit_per_minute: this.buckets.capacity,
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
  }
}

function deny(step: 1 | 2 | 3 | 4 | 5, constraintId: string, reason: string, extra: Record<string, unknown> = {}): TrustDecision {
  return { allowed: false, step, constraintId, reason, details: { trust_step: step, constraint_id: constraintId, ...extra } };
}
