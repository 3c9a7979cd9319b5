import type { Store } from '../../core/store.js';
import { AUDIT_COLLECTION, assertEntry, entryKey, sealEntry, type AuditEntry, type AuditFields } from './payload.js';
import { payloadCheck } from './verify.js';

interface Head {
  seq: number;
  hash: string;
}

export class ChainUnavailableError extends Error {}

/**
 * Appends to per-organisation hash chains. Within this process, appends of one organisation run
 * one after another on a promise chain (sequence numbers and prev hashes are assigned in one
 * place); appends of different organisations run concurrently, so their durable puts share LMDB
 * commits. Across processes, each entry is written with `insert` at `org/seq`: a process whose
 * cached head is stale loses the insert, reloads the head from the store and retries — two writers
 * can never both own a position, so the chain cannot fork.
 */
export class AuditChain {
  private readonly heads = new Map<string, Head | null>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly secret: string,
    private readonly maxRetries = 20,
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

  append(orgId: string, fields: AuditFields): Promise<AuditEntry> {
    const before = this.queues.get(orgId) ?? Promise.resolve();
    const run = () => this.appendNow(orgId, fields);
    const p = before.then(run, run);
    this.queues.set(orgId, p);
    const clear = () => {
      if (this.queues.get(orgId) === p) this.queues.delete(orgId);
    };
    p.then(clear, clear);
    return p;
  }

  private async appendNow(orgId: string, fields: AuditFields): Promise<AuditEntry> {
    for (let attempt = 0; attempt < this.maxRetries; attempt++) {
      const head = await this.head(orgId);
      const seq = head ? head.seq + 1 : 0;
      const entry = sealEntry(this.secret, orgId, seq, head ? head.hash : null, fields);
      if (await this.col.insert(entryKey(orgId, seq), entry)) {
        this.heads.set(orgId, { seq, hash: entry.payload_hash });
        return entry;
      }
      // another process appended first: forget the stale head and continue from the stored one
      this.heads.delete(orgId);
    }
    throw new ChainUnavailableError('audit append lost the race too many times');
  }
}
