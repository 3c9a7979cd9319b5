import type { Store, WriteOp } from '../../core/store/store.js';
import type { AttestationRecord } from './types.js';

/**
 * Deletes attestation records `graceSeconds` after they expire. Until `exp` a record is needed
 * (verify checks revocation against it; GET /attestation/{id} answers from it); after `exp` a token
 * is refused as expired before any record lookup, so the record only serves audits and can go.
 *
 * Record keys are `att_<UUIDv7>` and sort by issue time, so `step()` reads from the start of the
 * collection and stops at the first record issued after the cut-off (nothing later can have
 * expired): the work per step is what is prunable, whatever the collection's size. `sweep()` reads
 * everything once, for records of older releases whose keys were random (run once at start-up).
 */
export class RecordPruner {
  constructor(
    private readonly store: Store,
    private readonly collection: string,
    private readonly graceSeconds: number,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    private readonly pageSize = 2000,
  ) {}

  private async pass(stopAtCutoff: boolean, maxPages: number): Promise<number> {
    const col = this.store.collection<AttestationRecord>(this.collection);
    const cutoff = this.now() - this.graceSeconds;
    let start: string | undefined;
    let deleted = 0;
    for (let p = 0; p < maxPages; p++) {
      const page = await col.list({ start, limit: this.pageSize });
      const dels: WriteOp[] = [];
      let done = page.length < this.pageSize;
      for (const { key, value } of page) {
        if (stopAtCutoff && value && typeof value.iat === 'number' && value.iat >= cutoff) {
          done = true;
          break;
        }
        if (value && typeof value.exp === 'number' && value.exp < cutoff) dels.push({ collection: this.collection, key });
      }
      if (dels.length) await this.store.commit(dels);
      deleted += dels.length;
      if (done || !page.length) break;
      start = page[page.length - 1].key + '\u0000';
    }
    return deleted;
  }

  /** deletes what expired before the cut-off, oldest first; at most `maxPages` pages per call */
  step(maxPages = 50): Promise<number> {
    return this.pass(true, maxPages);
  }

  /** one full pass over every record */
  sweep(): Promise<number> {
    return this.pass(false, Number.MAX_SAFE_INTEGER);
  }
}
