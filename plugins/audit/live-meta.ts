import { performance } from 'node:perf_hooks';
import type { App, RequestContext } from '../../core/types.js';
import { AUDIT_SLOTS } from './slots.js';

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
 * the record fn that keeps its fields (the commit completes on the store's thread). The stream notes
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
  const t = ctx.get(AUDIT_SLOTS.startedAt);
  return t === undefined ? 0 : Math.round((performance.now() - t) * 1000) / 1000;
};

/**
 * Registered after the audit hooks, so its record fn runs once the entry is appended (its log id
 * is in the request's slot) and after the seal phase gave the reply its attestation id. The
 * latency runs from the route's gate to the recorded verdict (the audit commit included).
 */
export function registerLiveMeta(app: App, table: LiveMetaTable): void {
  app.phase('gate', (ctx) => {
    if (ctx.route.verification) ctx.set(AUDIT_SLOTS.startedAt, performance.now());
  });
  app.phase('record', (ctx, outcome) => {
    const id = ctx.get(AUDIT_SLOTS.logId);
    if (id === undefined) return;
    if (outcome.kind === 'refused') {
      table.set(id, { latency_ms: elapsed(ctx), admission: outcome.error.policyBlock ? 'DENY' : null, attestation_id: null });
      return;
    }
    const reply = outcome.reply;
    const a = reply.verdict?.admission;
    const body = reply.body && typeof reply.body === 'object' ? (reply.body as Record<string, unknown>) : {};
    table.set(id, {
      latency_ms: elapsed(ctx),
      admission: typeof a === 'string' && ADMISSIONS.has(a) ? (a as LiveMeta['admission']) : null,
      attestation_id: typeof body.attestation_id === 'string' ? body.attestation_id.slice(0, 128) : null,
    });
  });
}
