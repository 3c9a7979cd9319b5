import type { Store } from '../../core/store/store.js';
import type { ItemResult } from './run.js';

export const BATCH_COLLECTIONS = { jobs: 'batch_jobs', expiry: 'batch_jobs.expiry' } as const;

export interface StoredJob {
  job_id: string;
  org_id: string;
  status: 'completed';
  created_at: string;
  completed_at: string;
  results: ItemResult[];
  /** set when saved */
  expires_at?: string;
  total?: number;
  results_truncated?: boolean;
}

const SWEEP_PAGE = 200;

/**
 * Stored batch jobs with a retention and a size cap. A job past `expires_at` is gone (404) even
 * before the sweep removes it. A job larger than `max_stored_bytes` keeps the leading results that
 * fit and says so (`results_truncated`, `total`): the POST response had them all; what a later GET
 * can hold is bounded, so a tenant cannot grow the store by 4 MiB per request for ever.
 */
export class BatchJobs {
  constructor(
    private readonly store: Store,
    private readonly o: { retention_seconds: number; max_stored_bytes: number },
    private readonly now: () => number,
  ) {}

  private get jobs() {
    return this.store.collection<StoredJob>(BATCH_COLLECTIONS.jobs);
  }
  private get expiry() {
    return this.store.collection<string>(BATCH_COLLECTIONS.expiry);
  }

  async save(job: StoredJob): Promise<StoredJob> {
    const expires = new Date(this.now() + this.o.retention_seconds * 1000).toISOString();
    const stored: StoredJob = { ...(JSON.parse(JSON.stringify(job)) as StoredJob), expires_at: expires, total: job.results.length, results_truncated: false };
    let size = Buffer.byteLength(JSON.stringify(stored));
    if (size > this.o.max_stored_bytes) {
      stored.results_truncated = true;
      const kept: ItemResult[] = [];
      size = Buffer.byteLength(JSON.stringify({ ...stored, results: [] }));
      for (const r of stored.results) {
        const n = Buffer.byteLength(JSON.stringify(r)) + 1;
        if (size + n > this.o.max_stored_bytes) break;
        kept.push(r);
        size += n;
      }
      stored.results = kept;
    }
    // the index first: a job is never stored without the entry that will remove it
    await this.expiry.put(`${expires}/${job.job_id}`, job.job_id);
    await this.jobs.put(job.job_id, stored);
    return stored;
  }

  async get(jobId: string): Promise<StoredJob | undefined> {
    const job = await this.jobs.get(jobId);
    if (!job) return undefined;
    // jobs stored before retention existed carry no expires_at: they age from their creation
    const expires = job.expires_at ? Date.parse(job.expires_at) : Date.parse(job.created_at) + this.o.retention_seconds * 1000;
    if (!(expires > this.now())) return undefined;
    return job;
  }

  /** Removes up to one page of expired jobs; returns how many. */
  async sweep(): Promise<number> {
    const nowIso = new Date(this.now()).toISOString();
    // keys are `<expires_at>/<job id>`; '0' sorts right after '/', so jobs expiring exactly now are due
    const due = await this.expiry.list({ end: `${nowIso}0`, limit: SWEEP_PAGE });
    for (const e of due) {
      await this.jobs.delete(e.value);
      await this.expiry.delete(e.key);
    }
    return due.length;
  }
}
