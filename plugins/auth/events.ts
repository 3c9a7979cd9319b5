import { randomBytes } from 'node:crypto';
import type { Store } from '../../core/store/store.js';
import { pruneExpiredPrefixes } from '../../core/store/prune.js';

/**
 * Security events (auth failures, rate-limit hits, blocked verifications) recorded in the store as
 * they happen, for the threat summary. A flood must not turn into one durable write per rejected
 * request, so identical events are coalesced in memory for up to `flushMs` and written as one
 * record carrying a count; the buffer is bounded and flushed early when full, and on close.
 */
export type SecurityEventType =
  | 'auth_failure'
  | 'rate_limited'
  | 'blocked_verification'
  | 'injection_blocked'
  | 'key_rotated'
  | 'key_revoked';

export interface SecurityEvent {
  org_id: string;
  type: SecurityEventType;
  count: number;
  first_at: string;
  last_at: string;
  key_id: string | null;
  detail: string | null;
}

export const EVENTS_COLLECTION = 'security.events';
const MAX_PENDING = 10_000;

export class SecurityEvents {
  private pending = new Map<string, SecurityEvent>();
  private timer: NodeJS.Timeout | null = null;
  private inflight: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly flushMs = 1000,
  ) {}

  record(orgId: string, type: SecurityEventType, o: { keyId?: string | null; detail?: string | null } = {}): void {
    const detail = o.detail ? o.detail.slice(0, 200) : null;
    const k = `${orgId}\u0000${type}\u0000${o.keyId ?? ''}\u0000${detail ?? ''}`;
    const now = new Date().toISOString();
    const cur = this.pending.get(k);
    if (cur) {
      cur.count++;
      cur.last_at = now;
    } else {
      this.pending.set(k, { org_id: orgId, type, count: 1, first_at: now, last_at: now, key_id: o.keyId ?? null, detail });
    }
    if (this.pending.size >= MAX_PENDING) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes everything pending; concurrent puts share one commit. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    const col = this.store.collection<SecurityEvent>(EVENTS_COLLECTION);
    const write = Promise.all(batch.map((e) => col.put(`${e.org_id}/${e.last_at}/${randomBytes(4).toString('hex')}`, e))).then(() => undefined);
    this.inflight = this.inflight.then(() => write, () => write);
    return this.inflight;
  }

  /**
   * Removes the events last seen more than `retentionDays` ago (`auth.security_events_retention_days`).
   * Keys are `<org>/<last_at ISO>/<random>`, and ISO times sort as they compare.
   */
  prune(retentionDays: number, now: () => number = Date.now): Promise<number> {
    const cutoff = new Date(now() - retentionDays * 86_400_000).toISOString();
    return pruneExpiredPrefixes(this.store, EVENTS_COLLECTION, {
      groupOf: (key) => key.slice(0, key.indexOf('/')),
      expired: (key) => key.slice(key.indexOf('/') + 1, key.lastIndexOf('/')) < cutoff,
    });
  }

  /** Events of one organisation whose last occurrence is at or after `sinceIso`, oldest first. */
  async list(orgId: string, sinceIso: string): Promise<SecurityEvent[]> {
    await this.flush();
    const col = this.store.collection<SecurityEvent>(EVENTS_COLLECTION);
    return (await col.list({ prefix: `${orgId}/`, start: `${orgId}/${sinceIso}` })).map((e) => e.value);
  }
}
