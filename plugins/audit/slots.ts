import type { WriteOp } from '../../core/store/store.js';

/**
 * What the audit plugin takes from and hands to the other phases of one request, as typed request
 * slots (the key decides the type; core/types.ts RequestSlots).
 */
export const AUDIT_SLOTS = {
  /** writes (plain puts) a seal made that must be durable with this request's entry: one transaction, one commit */
  with: 'audit.with',
  /** the log id of this request's entry, once it is recorded */
  logId: 'audit.log_id',
  /** when the route's gate ran (performance.now()): the live view's latency starts there */
  startedAt: 'audit.started_at',
} as const;

declare module '../../core/types.js' {
  interface RequestSlots {
    'audit.with': readonly WriteOp[];
    'audit.log_id': string;
    'audit.started_at': number;
  }
}
