import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { sha256Ref } from '../../core/json/canonical.js';
import { HttpError } from '../../core/errors.js';
import { EngineError } from '../../core/workers/pools.js';
import { A2AProblems } from './errors.js';
import { disabledGuard } from './guards/passthrough.js';
import type { GuardRegistry } from './guards/registry.js';
import { isGuardOutcome, type Guard, type GuardOutcome } from './guards/types.js';
import type { AgentMessage, PayloadType, VerdictStatus, VerificationVerdict } from './message.js';
import { TRUST_ENGINE, type A2AMetrics } from './metrics.js';
import type { VerdictSigner } from './signer.js';
import type { TrustBoundary, TrustDecision } from './trust-boundary.js';
import { SENDER_NOT_AUTHENTICATED, type SenderAuthenticator, type SenderAuthMethod, type SenderDecision } from './sender-auth.js';
import type { Principal } from '../../core/types.js';

/** who handed the message in: the authenticated principal and the body bytes as sent */
export interface Caller {
  principal: Principal | null;
  raw: Buffer | null;
  /** how a trusted sidecar authenticated the sender (inbound mode: a vouching verdict) */
  vouched?: SenderAuthMethod;
}

/**
 * One intercept, start to end: trust boundary → guard → verdict → signature. The checks run on the
 * event loop (at tens of microseconds a worker hop would cost more than the work) except the
 * guard's worker hop (code, very large invoices); the ES256 signature is computed on libuv's thread
 * pool, the largest single cost of a message (~45 µs) taken off the event loop for a few µs of
 * hand-off. Every path returns a verdict or throws an HttpError (a failed signature included);
 * nothing here can end in `forwarded` without a guard having said so.
 */
export interface GatewayOptions {
  signer: VerdictSigner;
  boundary: TrustBoundary;
  senders: SenderAuthenticator;
  guards: GuardRegistry;
  metrics: A2AMetrics;
  blockOnError: boolean;
  /** payload types whose enable_* flag is off, with the flag's name */
  disabled: ReadonlyMap<PayloadType, string>;
  clock?: () => number;
  /**
   * Whether the intercept line would be written (the logger's level): lets a request that logs
   * nothing skip building its child logger. Absent: the line is handed to the logger, which decides.
   */
  infoEnabled?: () => boolean;
}

/** a request's logger, or a getter for one built on first use (a child logger per request costs allocations) */
export type LogSource = Logger | (() => Logger);

const isThenable = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown } | null)?.then === 'function';

/** a guard's outcome, or the gateway's own `error` */
type Outcome = Omit<GuardOutcome, 'status'> & { status: VerdictStatus };

const UNSIGNED: ReadonlySet<VerdictStatus> = new Set(['unverifiable']);

export class A2AGateway {
  private readonly clock: () => number;
  private readonly disabledGuards = new Map<PayloadType, Guard>();

  constructor(private readonly o: GatewayOptions) {
    this.clock = o.clock ?? Date.now;
    for (const [type, flag] of o.disabled) this.disabledGuards.set(type, disabledGuard(flag));
  }

  /** the guard a payload type is routed to right now (enable_* flags win over any registration) */
  guardFor(type: PayloadType): Guard | undefined {
    return this.disabledGuards.get(type) ?? this.o.guards.get(type);
  }

  /**
   * `signal` and `log` may be getters: a request's AbortSignal and child logger are built on first
   * access, and most intercepts read neither (only a guard handing work to a worker needs the signal,
   * only an enabled intercept line or a failure the logger). Steps that answer synchronously (sender
   * check by agent token, in-process buckets, an inline guard) are not awaited: the awaits left on
   * the common path are the signature and, for a key bound to the sender, one store read of who
   * owns the id now (issue 38: a stale binding must fail closed on every replica).
   */
  async intercept(msg: AgentMessage, caller: Caller, signal: AbortSignal | (() => AbortSignal), log: LogSource): Promise<VerificationVerdict> {
    const started = performance.now();
    const traceId = randomUUID();
    const sender = msg.sender_agent_id;
    const receiver = msg.receiver_agent_id;
    const type = msg.payload_type;
    let sub: string;
    try {
      sub = sha256Ref(msg.payload);
    } catch {
      throw new HttpError(A2AProblems.payloadNotCanonical, 'payload holds a number outside the range RFC 8785 can represent');
    }

    let outcome: Outcome;
    let engine: string;
    // step 0, before the boundary: a sender id is believed only when authenticated (issue 12)
    let who: SenderDecision;
    if (caller.vouched !== undefined && caller.vouched !== 'none') who = { ok: true, method: caller.vouched };
    else {
      const w = this.o.senders.decide(sender, msg.signature, caller.raw, caller.principal);
      who = isThenable(w) ? await w : w;
    }
    const senderAuth: SenderAuthMethod = who.method;
    let trust: TrustDecision | null = null;
    if (who.ok) {
      const t = this.o.boundary.decide(caller.principal?.orgId ?? '', sender, receiver, type);
      trust = isThenable(t) ? await t : t;
    }
    if (!who.ok) {
      engine = TRUST_ENGINE;
      outcome = { status: 'blocked', reason: who.reason, details: { trust_step: 0, constraint_id: SENDER_NOT_AUTHENTICATED, failure: who.failure } };
    } else if (trust && !trust.allowed) {
      engine = TRUST_ENGINE;
      outcome = { status: 'blocked', reason: trust.reason, details: trust.details };
    } else {
      const guard = this.guardFor(type);
      engine = guard?.name ?? 'none';
      if (guard) {
        const o = this.runGuard(guard, msg, traceId, signal, log);
        outcome = isThenable(o) ? await o : o;
      } else outcome = this.failure('no_guard');
    }

    const nowMs = this.clock();
    const status = outcome.status;
    const jwt = UNSIGNED.has(status)
      ? null
      : await this.o.signer.signAsync(this.o.signer.claims({ sub, traceId, verdict: status, engine, sender, receiver, senderAuth, nowMs }));
    const verdict: VerificationVerdict = {
      status,
      reason: outcome.reason,
      audit_trace_id: traceId,
      attestation_jwt: jwt,
      engine_used: engine,
      verified_at: new Date(nowMs).toISOString(),
      details: outcome.details ?? null,
    };
    const latencyMs = performance.now() - started;
    this.o.metrics.record(caller.principal?.orgId ?? '', status, engine, latencyMs);
    if (this.o.infoEnabled?.() ?? true) {
      logOf(log).info({ trace_id: traceId, verdict: status, engine, latency_ms: Math.round(latencyMs * 1000) / 1000, sender, receiver, payload_type: type, sender_auth: senderAuth, org_id: caller.principal?.orgId }, 'a2a.intercept');
    }
    return verdict;
  }

  /** the guard's outcome; synchronous when the guard answered synchronously (the inline checks) */
  private runGuard(guard: Guard, msg: AgentMessage, traceId: string, signal: AbortSignal | (() => AbortSignal), log: LogSource): Outcome | Promise<Outcome> {
    let out: GuardOutcome | Promise<GuardOutcome>;
    try {
      out = guard.check(msg.payload, {
        payloadType: msg.payload_type,
        sender: msg.sender_agent_id,
        receiver: msg.receiver_agent_id,
        traceId,
        get signal() {
          return typeof signal === 'function' ? signal() : signal;
        },
      });
    } catch (err) {
      return this.guardFailed(guard, traceId, log, err);
    }
    if (!isThenable(out)) return this.settle(guard, traceId, log, out);
    return out.then(
      (o) => this.settle(guard, traceId, log, o),
      (err: unknown) => this.guardFailed(guard, traceId, log, err),
    );
  }

  private settle(guard: Guard, traceId: string, log: LogSource, out: unknown): Outcome {
    if (!isGuardOutcome(out)) {
      logOf(log).error({ engine: guard.name, trace_id: traceId }, 'a2a guard returned a malformed outcome');
      return this.failure('malformed_outcome');
    }
    return { status: out.status, reason: out.reason, details: out.details ?? null };
  }

  private guardFailed(guard: Guard, traceId: string, log: LogSource, err: unknown): Outcome {
    const kind = err instanceof EngineError ? `engine_${err.kind}` : 'guard_failed';
    logOf(log).error({ err, engine: guard.name, trace_id: traceId }, 'a2a guard failed');
    return this.failure(kind);
  }

  /** `error` verdict: the message is blocked unless the operator set block_on_error=false. */
  private failure(kind: string): Outcome {
    const blocked = this.o.blockOnError;
    return {
      status: 'error',
      reason: blocked ? 'Internal verification failure; the message is blocked' : 'Internal verification failure; block_on_error is off, the message may be forwarded',
      details: { error_kind: kind, blocked },
    };
  }
}

function logOf(log: LogSource): Logger {
  return typeof log === 'function' ? log() : log;
}
