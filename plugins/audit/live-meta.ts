import { performance } from 'node:perf_hooks';
import type { App, RequestContext } from '../../core/types.js';
import { VERIFICATION_TAG } from './hooks.js';

/**
 * What the live stream shows beside an entry that the entry itself does not hold (issue 41): how
 * long the verification took, its admission and its attestation id. They are not in the chain,
 * whose entries are hashed in a fixed form the offline verifier rebuilds; they are display data,
 * kept in this process for the newest entries it appended. An entry another replica appended, or
 * one older than what is kept, streams them as null.
 */
export interface LiveMeta {
  latency_ms: number;
  admission: 'ADMIT' | 'BLOCKED' | 'DENY' | null;
  attestation_id: string | null;
}

/** entries remembered; a stream reads entries within seconds of their append */
const KEEP = 10_000;
const START = 'auditLiveStart';

export class LiveMetaTable {
  private readonly byLogId = new Map<string, LiveMeta>();

  set(logId: string, m: LiveMeta): void {
    this.byLogId.set(logId, m);
    if (this.byLogId.size > KEEP) this.byLogId.delete(this.byLogId.keys().next().value!);
  }

  get(logId: string): LiveMeta | undefined {
    return this.byLogId.get(logId);
  }
}

/** entries a stream waits for fields of, and for how many polls (500 ms each) before taking them as another replica's */
const AWAIT_MAX = 256;
const AWAIT_POLLS = 20;

/**
 * An entry can be committed, and read by a stream, before the request that appended it has reached
 * the hook that records its fields (the commit completes on the store's thread). The stream notes
 * such an entry and sends its fields as a `meta` event once they are known; an entry whose fields
 * never come (another replica's) is dropped from the list after a few polls.
 */
export class AwaitingMeta {
  private readonly ids = new Map<string, number>();

  constructor(private readonly table: LiveMetaTable) {}

  note(logId: string): void {
    if (this.ids.size >= AWAIT_MAX) this.ids.delete(this.ids.keys().next().value!);
    this.ids.set(logId, AWAIT_POLLS);
  }

  /** `meta` events for the noted entries whose fields are known now */
  drain(): string {
    let out = '';
    for (const [id, left] of this.ids) {
      const m = this.table.get(id);
      if (m) {
        out += `event: meta\ndata: ${JSON.stringify({ log_id: id, ...m })}\n\n`;
        this.ids.delete(id);
      } else if (left <= 1) this.ids.delete(id);
      else this.ids.set(id, left - 1);
    }
    return out;
  }
}

const ADMISSIONS = new Set(['ADMIT', 'BLOCKED', 'DENY']);
const elapsed = (ctx: RequestContext) => {
  const t = ctx.state[START] as number | undefined;
  return t === undefined ? 0 : Math.round((performance.now() - t) * 1000) / 1000;
};

/**
 * Registered after the audit hooks, so each reply hook here runs once the entry is appended (its
 * log id is in ctx.state) and after the attestation hook gave the reply its attestation id. The
 * latency runs from the route's first hook to the recorded verdict (the audit commit included).
 */
export function registerLiveMeta(app: App, table: LiveMetaTable): void {
  const isVerification = (ctx: RequestContext) => ctx.route.tags?.includes(VERIFICATION_TAG) ?? false;
  app.hook('onRequest', (ctx) => {
    if (isVerification(ctx)) ctx.state[START] = performance.now();
  });
  app.hook('onReply', (ctx, reply) => {
    const id = ctx.state.auditLogId;
    if (!isVerification(ctx) || typeof id !== 'string') return;
    const a = reply.verdict?.admission;
    const body = reply.body && typeof reply.body === 'object' ? (reply.body as Record<string, unknown>) : {};
    table.set(id, {
      latency_ms: elapsed(ctx),
      admission: typeof a === 'string' && ADMISSIONS.has(a) ? (a as LiveMeta['admission']) : null,
      attestation_id: typeof body.attestation_id === 'string' ? body.attestation_id.slice(0, 128) : null,
    });
  });
  app.hook('onError', (ctx, err) => {
    const id = ctx.state.auditLogId;
    if (!isVerification(ctx) || typeof id !== 'string') return;
    table.set(id, { latency_ms: elapsed(ctx), admission: err.policyBlock ? 'DENY' : null, attestation_id: null });
  });
}
