import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Store, WriteOp } from '../../core/store.js';
import type { AuditChain } from './chain.js';
import { CHECKPOINT_COLLECTION, checkpointKey, makeCheckpoint, type CheckpointSigner } from './checkpoint.js';
import { AUDIT_COLLECTION, assertEntry, type AuditEntry } from './payload.js';

/**
 * Audit retention (`audit.retention_days`; default: keep everything). Per organisation, the
 * oldest entries older than the cut-off are, in this order: appended to a JSONL export file and
 * fsynced; covered by a signed checkpoint at the last pruned entry (reason `prune`) — the anchor
 * `proofgate audit verify` starts from; then deleted. A crash between the steps leaves either
 * nothing deleted or an anchored chain: never an unverifiable one. The newest entry of a chain is
 * never pruned, so the head (and the next seq) is always read from the chain itself.
 */
export interface RetentionOptions {
  store: Store;
  chain: AuditChain;
  signer: CheckpointSigner | null;
  log: Logger;
  retentionDays: number;
  exportDir: string;
  now?: () => Date;
  /** entries deleted per transaction */
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

/** fsyncs directories, so the names created in them survive a power cut */
export function syncDirs(dirs: readonly string[]): void {
  for (const d of dirs) {
    const fd = openSync(d, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** `dir` and, when mkdir made it (`first`: the top directory it created), each new level and its parent */
function createdDirs(dir: string, first: string | undefined): string[] {
  const out = [dir];
  if (first === undefined) return out;
  for (let d = dir; d !== first && dirname(d) !== d; d = dirname(d)) out.push(dirname(d));
  out.push(dirname(first));
  return out;
}

/** Exports then prunes every organisation's expired prefix; returns the number of entries pruned. */
export async function pruneAudit(o: RetentionOptions): Promise<number> {
  if (!o.signer) {
    o.log.error('audit retention is configured but no attestation signing key exists: nothing is pruned (a prune needs a signed checkpoint)');
    return 0;
  }
  const now = (o.now ?? (() => new Date()))();
  const cutoff = new Date(now.getTime() - o.retentionDays * 86_400_000).toISOString();
  const col = o.store.collection<unknown>(AUDIT_COLLECTION);
  const batch = o.batch ?? 1000;
  let total = 0;
  for (const org of await organisations(o.store)) {
    for (;;) {
      // one more than the batch: the entry after the last pruned one must exist (never prune the head)
      const page = await col.list({ prefix: `${org}/`, limit: batch + 1 });
      const old: AuditEntry[] = [];
      let malformed: string | null = null;
      for (let i = 0; i < page.length - 1; i++) {
        const v = page[i].value;
        try {
          assertEntry(v);
        } catch (err) {
          // kept, with every entry after it: the verifier reports it; the other chains prune on
          malformed = `${page[i].key}: ${(err as Error).message}`;
          break;
        }
        if (v.timestamp >= cutoff) break;
        old.push(v);
      }
      if (malformed) o.log.error({ org, entry: malformed }, 'audit retention stops this chain at a malformed entry (run proofgate audit verify)');
      if (!old.length) break;
      const last = old[old.length - 1];
      const made = mkdirSync(o.exportDir, { recursive: true, mode: 0o700 });
      const file = join(o.exportDir, `audit-${org}-${String(old[0].seq).padStart(12, '0')}-${String(last.seq).padStart(12, '0')}.jsonl`);
      const fd = openSync(file, 'a', 0o600);
      const size = fstatSync(fd).size;
      try {
        // writeFileSync repeats short writes until all is written or one fails (full disk, file
        // size limit); a single writeSync may store part of the batch and report no error
        writeFileSync(fd, old.map((e) => JSON.stringify(e)).join('\n') + '\n');
        fsyncSync(fd);
        // a new file's name lives in the directory: until that is synced too, a power cut after the
        // delete below could leave the data synced but unreachable (and a new directory in its parent)
        if (size === 0) syncDirs(createdDirs(o.exportDir, made));
      } catch (err) {
        // nothing is pruned; the cut line goes too, so the file stays whole lines for the next run
        try {
          ftruncateSync(fd, size);
        } catch {
          // the export already failed: that error is the one to report
        }
        throw err;
      } finally {
        closeSync(fd);
      }
      const cp = makeCheckpoint(o.signer, org, { seq: last.seq, hash: last.payload_hash }, 'prune', now);
      await o.store.commit([{ collection: CHECKPOINT_COLLECTION, key: checkpointKey(org, last.seq), value: cp }]);
      const dels: WriteOp[] = old.map((_, i) => ({ collection: AUDIT_COLLECTION, key: page[i].key }));
      await o.store.commit(dels);
      total += old.length;
      o.log.info({ org, from: old[0].seq, to: last.seq, file }, 'audit entries exported and pruned');
      if (malformed || old.length < batch) break;
    }
  }
  return total;
}
