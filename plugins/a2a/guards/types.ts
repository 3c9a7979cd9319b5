import type { PayloadType } from '../message.js';

/**
 * What a guard is: a named, deterministic check of one payload type's payload. Guards return a
 * plain outcome; the gateway turns it into a verdict, signs it and counts it. A guard that throws,
 * or returns anything but a well-formed outcome, produces an `error` verdict (fail closed per
 * block_on_error), so a faulty operator guard cannot forward a message by accident.
 */
export type GuardStatus = 'forwarded' | 'blocked' | 'heuristic_pass' | 'unverifiable';

export interface GuardOutcome {
  status: GuardStatus;
  reason: string | null;
  details?: Record<string, unknown> | null;
}

export interface GuardContext {
  payloadType: PayloadType;
  sender: string;
  receiver: string;
  traceId: string;
  /** aborted when the client goes away or the server shuts down */
  signal: AbortSignal;
}

export interface Guard {
  /** engine name reported as `engine_used` and as the metrics label; [a-z0-9_]{1,64} */
  readonly name: string;
  check(payload: Record<string, unknown>, ctx: GuardContext): GuardOutcome | Promise<GuardOutcome>;
}

const STATUSES: ReadonlySet<string> = new Set(['forwarded', 'blocked', 'heuristic_pass', 'unverifiable']);

export function isGuardOutcome(v: unknown): v is GuardOutcome {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  if (typeof o.status !== 'string' || !STATUSES.has(o.status)) return false;
  if (o.reason !== null && typeof o.reason !== 'string') return false;
  if (o.details !== undefined && o.details !== null && (typeof o.details !== 'object' || Array.isArray(o.details))) return false;
  return true;
}

export function unverifiable(reason: string, details: Record<string, unknown> | null = null): GuardOutcome {
  return { status: 'unverifiable', reason, details };
}
