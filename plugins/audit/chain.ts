import type { Store, WriteOp } from '../../core/store/store.js';
import { traced } from '../../core/obs/tracing.js';
import { assertEntry, entryKey, sealEntry, type AuditEntry, type AuditFields } from './payload.js';
import { AUDIT_COLLECTION } from './compact.js';
import { payloadCheck } from './verify.js';

export interface Head {
  seq: number;
  hash: string;
}

export class ChainUnavailableError extends Error {}

export interface AppendOptions {
  /**
   * Other writes that must be durable together with the entry (e.g. the attestation record of the
   * verdict the entry records): they go into the same transaction, so one request costs one commit.
   * Plain puts only — an insert-if-absent here would make a lost race indistinguishable from a
   * conflict of the companion key.
   */
  with?: readonly WriteOp[];
}

interface Pending {
  fields: AuditFields;
  with: readonly WriteOp[] | undefined;
  resolve(e: AuditEntry): void;
  reject(err: unknown): void;
}

interface OrgQueue {
  waiting: Pending[];
  busy: boolean;
}

/**
 * Appends to per-organisation hash chains with group commit. Appends of one organisation that
 * arrive while a commit of that organisation is in flight wait in a queue; when the commit ends,
 * all of them are sealed in arrival order (seq, prev hash) and written by ONE `store.commit`
 * transaction, and every caller's promise resolves only once that transaction is durable.
 * Organisations commit independently (their transactions share LMDB's disk syncs).
 *
 * Across processes, the first position of the batch is an insert-if-absent inside that one
 * transaction (a chain has no gaps, so a writer that holds it holds every later one): a process
 * whose cached head is stale loses (nothing is written), reloads the head from the store, reseals
 * the whole batch after it and retries — two writers can never both own a position, so the chain
 * cannot fork, and an aborted batch leaves no gap.
 */
export class AuditChain {
  private readonly heads = new Map<string, Head | null>();
  private readonly queues = new Map<string, OrgQueue>();
  /** figures for the bench and /metrics: commits and entries written by this process */
  readonly stats = { commits: 0, entries: 0, races: 0 };

  constructor(
    private readonly store: Store,
    private readonly secret: string,
    private readonly maxRetries = 20,
    /** upper bound of one batch, so one transaction stays small whatever the backlog */
    private readonly maxBatch = 512,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get col() {
    return this.store.collection<AuditEntry>(AUDIT_COLLECTION);
  }

  /** The organisation's last entry (null for an empty chain); throws ChainUnavailableError when it cannot be trusted. */
  async head(orgId: string): Promise<Head | null> {
    if (this.heads.has(orgId)) return this.heads.get(orgId)!;
    let last;
    try {
      last = await this.col.list({ prefix: `${orgId}/`, reverse: true, limit: 1 });
    } catch (err) {
      throw new ChainUnavailableError(`cannot read the audit chain: ${(err as Error).message}`);
    }
    let head: Head | null = null;
    if (last.length) {
      const e: unknown = last[0].value;
      try {
        assertEntry(e);
      } catch (err) {
        throw new ChainUnavailableError((err as Error).message);
      }
      // continuing from a head whose hash does not match its content would extend a forged chain
      if (!payloadCheck(e).ok || last[0].key !== entryKey(orgId, e.seq)) throw new ChainUnavailableError('the chain head fails its payload check');
      head = { seq: e.seq, hash: e.payload_hash };
    }
    this.heads.set(orgId, head);
    return head;
  }

  /** Heads known to this process (organisations it appended to or read), for checkpoints. */
  knownHeads(): Array<[string, Head]> {
    return [...this.heads.entries()].filter((e): e is [string, Head] => e[1] !== null);
  }

  /** Forgets the cached head so the next append re-reads it (after another writer, or a prune). */
  forget(orgId: string): void {
    this.heads.delete(orgId);
  }

  /** the span covers the wait for the group commit that carries this entry, as the request waits for it */
  append(orgId: string, fields: AuditFields, opts: AppendOptions = {}): Promise<AuditEntry> {
    return traced('audit commit', {}, () => this.enqueue(orgId, fields, opts));
  }

  private enqueue(orgId: string, fields: AuditFields, opts: AppendOptions): Promise<AuditEntry> {
    return new Promise<AuditEntry>((resolve, reject) => {
      let q = this.queues.get(orgId);
      if (!q) {
        q = { waiting: [], busy: false };
        this.queues.set(orgId, q);
      }
      q.waiting.push({ fields, with: opts.with, resolve, reject });
      if (!q.busy) {
        q.busy = true;
        // a microtask later, so appends issued in the same tick start out in one batch
        queueMicrotask(() => void this.drain(orgId, q!));
      }
    });
  }

  private async drain(orgId: string, q: OrgQueue): Promise<void> {
    while (q.waiting.length) {
      const batch = q.waiting.splice(0, this.maxBatch);
      try {
        const entries = await this.commitBatch(orgId, batch);
        for (let i = 0; i < batch.length; i++) batch[i].resolve(entries[i]);
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    q.busy = false;
    if (this.queues.get(orgId) === q) this.queues.delete(orgId);
  }

  private async commitBatch(orgId: string, batch: Pending[]): Promise<AuditEntry[]> {
    for (let attempt = 0; attempt < this.maxRetries; attempt++) {
      const head = await this.head(orgId);
      let seq = head ? head.seq + 1 : 0;
      let prev = head ? head.hash : null;
      const now = this.now();
      const entries: AuditEntry[] = [];
      const ops: WriteOp[] = [];
      for (const p of batch) {
        const entry = sealEntry(this.secret, orgId, seq, prev, p.fields, now);
        entries.push(entry);
        // the first position is the race: a chain has no gaps, so whoever holds it holds the rest
        ops.push({ collection: AUDIT_COLLECTION, key: entryKey(orgId, seq), value: entry, ifAbsent: entries.length === 1 });
        if (p.with) for (const w of p.with) ops.push({ collection: w.collection, key: w.key, value: w.value });
        prev = entry.payload_hash;
        seq++;
      }
      let written: boolean;
      try {
        // a loss before the last attempt is retried: a shared backend may keep the chain for it
        written = await this.store.commit(ops, { retryOnConflict: attempt < this.maxRetries - 1 });
      } catch (err) {
        // the outcome is unknown (the transaction may or may not have landed): re-read the head next time
        this.heads.delete(orgId);
        throw err;
      }
      if (written) {
        const last = entries[entries.length - 1];
        this.heads.set(orgId, { seq: last.seq, hash: last.payload_hash });
        this.stats.commits++;
        this.stats.entries += entries.length;
        return entries;
      }
      // another process appended first: forget the stale head and reseal after the stored one
      this.stats.races++;
      this.heads.delete(orgId);
    }
    throw new ChainUnavailableError('audit append lost the race too many times');
  }
}
