import type { Logger } from 'pino';
import type { Store, WriteOp } from '../../core/store/store.js';
import type { AuditChain } from './chain.js';
import { CHECKPOINT_COLLECTION, checkpointKey, makeCheckpoint, type CheckpointSigner } from './checkpoint.js';
import { writeExport } from './export-file.js';
import { entryKey } from './payload.js';
import { AUDIT_COLLECTION } from './compact.js';
import { checkPrunablePrefix, type GateResult, type RefusalReason } from './prune-gate.js';

/**
 * Audit retention (`audit.retention_days`; default: keep everything). Per organisation, the
 * oldest entries older than the cut-off are, in this order: verified (prune-gate.ts: a prefix
 * that does not verify, up to its link to the first kept entry, is not pruned at all); written to
 * an export file that verifies offline, fsynced; covered by a signed checkpoint at the last pruned
 * entry (reason `prune`) — the anchor `proofgate audit verify` starts from; then deleted. A crash
 * between the steps leaves either nothing deleted or an anchored chain: never an unverifiable one.
 * The newest entry of a chain is never pruned, so the head (and the next seq) is always read from
 * the chain itself.
 */
export interface RetentionOptions {
  store: Store;
  chain: AuditChain;
  signer: CheckpointSigner | null;
  /** SVC_AUDIT_SECRET_KEY: the gate checks every HMAC of what it is about to prune */
  secret: string;
  log: Logger;
  retentionDays: number;
  exportDir: string;
  /** RFC 7638 thumbprints an anchor prune checkpoint must be signed by (none: any valid signature) */
  anchorPins?: readonly string[];
  /** counts chains whose prune the gate refused, by reason (svc_audit_prune_refused_total) */
  refused?: { inc(labels: { reason: RefusalReason }): void };
  now?: () => Date;
  /** entries deleted per transaction (and per export file) */
  batch?: number;
}

async function organisations(store: Store): Promise<string[]> {
  const col = store.collection<unknown>(AUDIT_COLLECTION);
  const orgs: string[] = [];
  let start: string | undefined;
  for (;;) {
    const first = await col.list({ start, limit: 1 });
    if (!first.length) return orgs;
    const org = first[0].key.slice(0, first[0].key.lastIndexOf('/'));
    orgs.push(org);
    start = `${org}/\uffff`;
  }
}

function refuse(o: RetentionOptions, org: string, r: Extract<GateResult, { ok: false }>): void {
  o.log.error(
    { org, reason: r.reason, seq: r.seq, detail: r.detail },
    'audit retention refused to prune this chain: its expired prefix does not verify, so nothing of it is exported, checkpointed or deleted (run proofgate audit verify)',
  );
  o.refused?.inc({ reason: r.reason });
}

/** Exports then prunes every organisation's expired prefix that verifies; returns the number of entries pruned. */
export async function pruneAudit(o: RetentionOptions): Promise<number> {
  if (!o.signer) {
    o.log.error('audit retention is configured but no attestation signing key exists: nothing is pruned (a prune needs a signed checkpoint)');
    return 0;
  }
  const now = (o.now ?? (() => new Date()))();
  const cutoff = new Date(now.getTime() - o.retentionDays * 86_400_000).toISOString();
  const batch = o.batch ?? 1000;
  let total = 0;
  for (const org of await organisations(o.store)) {
    // the whole expired prefix first: a defect anywhere in it keeps every entry of the chain
    const all = await checkPrunablePrefix(o.store, o.secret, org, cutoff, { anchorPins: o.anchorPins });
    if (!all.ok) {
      refuse(o, org, all);
      continue;
    }
    let left = all.count;
    while (left > 0) {
      // each batch is checked again as it is read for export: the store may have changed since
      const r = await checkPrunablePrefix(o.store, o.secret, org, cutoff, { max: Math.min(batch, left), collect: true, anchorPins: o.anchorPins });
      if (!r.ok) {
        refuse(o, org, r);
        break;
      }
      if (!r.entries.length) break;
      const old = r.entries;
      const last = old[old.length - 1];
      const cp = makeCheckpoint(o.signer, org, { seq: last.seq, hash: last.payload_hash }, 'prune', now);
      const file = writeExport(o.exportDir, o.secret, old, r.anchor, cp);
      await o.store.commit([{ collection: CHECKPOINT_COLLECTION, key: checkpointKey(org, last.seq), value: cp }]);
      const dels: WriteOp[] = old.map((e) => ({ collection: AUDIT_COLLECTION, key: entryKey(org, e.seq) }));
      await o.store.commit(dels);
      total += old.length;
      left -= old.length;
      o.log.info({ org, from: old[0].seq, to: last.seq, file }, 'audit entries exported and pruned');
    }
  }
  return total;
}
