import { Readable } from 'node:stream';
import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext, Reply } from '../../core/types.js';
import { assertEntry, entryKey, logIdOf, type AuditEntry, type AuditStatus } from './payload.js';
import { auditCollection, newestEntries } from './store-read.js';
import { AwaitingMeta, type LiveMeta, type LiveMetaTable } from './live-meta.js';

/** How often a stream reads its chain; the store is the source, so entries other replicas append show up too. */
export const STREAM_POLL_MS = 500;
/** Entries read per poll; a full batch is followed at once by the next, so a burst is caught up in steps. */
const BATCH = 100;
/**
 * Bytes a stream may hold that its client has not taken: past it the stream stops reading the chain
 * (the entries wait in the store, not in memory) until the client reads, so a client that never
 * reads costs at most this much.
 */
export const MAX_BUFFERED = 64 * 1024;
/** Streams open at once per organisation and per process: each costs a timer and a read per poll. */
export const STREAMS_PER_ORG = 4;
export const STREAMS_MAX = 256;
const HEARTBEAT_MS = 15_000;

const open = new Map<string, number>();
let total = 0;

/**
 * What one event carries: the entry's public fields, never the HMAC, the user or the LLM's raw text;
 * with the latency, admission and attestation id this process remembers of it (null otherwise: a
 * `meta` event follows if they arrive, live-meta.ts).
 */
function event(e: AuditEntry, logId: string, m: LiveMeta | undefined): string {
  const data = {
    log_id: logId,
    seq: e.seq,
    timestamp: e.timestamp,
    route: e.route,
    method: e.method,
    status: e.status,
    engine: e.engine,
    http_status: e.http_status,
    constraint_id: e.constraint_id,
    proof_ref: e.proof_ref,
    latency_ms: m?.latency_ms ?? null,
    admission: m?.admission ?? null,
    attestation_id: m?.attestation_id ?? null,
  };
  return `id: ${e.seq}\nevent: entry\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * GET /audit/stream: the caller's organisation's audit entries as they are appended, as server-sent
 * events (docs/audit.md). It starts after the newest entry at connect and reads forward from the
 * store; it ends when the user's sign-in would have expired, so a stream outlives no session.
 */
export async function auditStream(app: App, ctx: RequestContext, live?: LiveMetaTable): Promise<Reply> {
  const org = ctx.principal!.orgId;
  const q = ctx.query as { status?: AuditStatus };
  if ((open.get(org) ?? 0) >= STREAMS_PER_ORG || total >= STREAMS_MAX) {
    throw new HttpError(Problems.rateLimited, `at most ${STREAMS_PER_ORG} audit streams per organisation are open at once`, { headers: { 'retry-after': '5' } });
  }
  const head = (await newestEntries(app.store, org, { limit: 1 })).entries[0];
  let next = head ? head.seq + 1 : 0;
  open.set(org, (open.get(org) ?? 0) + 1);
  total++;
  const col = auditCollection(app.store);
  const awaiting = live ? new AwaitingMeta(live) : null;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let lastWrite = Date.now();
  const body = new Readable({ read() {} });
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    open.set(org, (open.get(org) ?? 1) - 1);
    if (open.get(org) === 0) open.delete(org);
    total--;
    body.push(null);
  };
  const deadline = setTimeout(close, app.config.auth.jwt_ttl_seconds * 1000);
  deadline.unref();
  ctx.signal.addEventListener('abort', () => {
    clearTimeout(deadline);
    close();
  });
  body.on('close', () => {
    clearTimeout(deadline);
    close();
  });
  const schedule = (ms: number) => {
    if (!closed) timer = setTimeout(() => void poll(), ms);
  };
  const poll = async () => {
    if (closed) return;
    if (body.readableLength > MAX_BUFFERED) return schedule(STREAM_POLL_MS);
    let full = false;
    try {
      const batch = await col.list({ prefix: `${org}/`, start: entryKey(org, next), limit: BATCH });
      let out = '';
      for (const { value } of batch) {
        try {
          assertEntry(value);
        } catch {
          continue;
        }
        if (value.seq < next) continue;
        next = value.seq + 1;
        if (q.status && value.status !== q.status) continue;
        const logId = logIdOf(value.org_id, value.seq);
        const m = live?.get(logId);
        if (!m) awaiting?.note(logId);
        out += event(value, logId, m);
      }
      out += awaiting?.drain() ?? '';
      full = batch.length === BATCH;
      if (!out && Date.now() - lastWrite >= HEARTBEAT_MS) out = ': keep-alive\n\n';
      if (out && !closed) {
        body.push(out);
        lastWrite = Date.now();
      }
    } catch (err) {
      ctx.log.warn({ err, event: 'audit.stream_read_failed' }, 'audit stream could not read the chain');
      if (!closed) body.push(`event: error\ndata: ${JSON.stringify({ detail: 'the audit chain could not be read; reconnect' })}\n\n`);
      close();
      return;
    }
    schedule(full ? 0 : STREAM_POLL_MS);
  };
  body.push(`event: ready\ndata: ${JSON.stringify({ next_seq: next })}\n\n`);
  schedule(STREAM_POLL_MS);
  return { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' }, body };
}

/** open streams, for tests */
export function openStreams(): number {
  return total;
}
