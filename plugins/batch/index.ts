import { randomUUID } from 'node:crypto';
import type { App, Plugin, RequestContext } from '../../core/types.js';
import { HttpError } from '../../core/errors.js';
import { BatchProblems } from './errors.js';
import { runBatch } from './run.js';
import type { BatchItem } from './items.js';
import { BatchJobs, type StoredJob } from './jobs.js';
import { batchSettings } from './settings.js';

export type { BatchAttestor } from './run.js';
export { BATCH_COLLECTIONS, BatchJobs, type StoredJob } from './jobs.js';

const S = 'https://proofgate.dev/schemas/batch';
export const BATCH_JOBS_SERVICE = 'batch.jobs';
const SWEEP_EVERY_MS = 10 * 60_000;

declare module '../../core/types.js' {
  interface Services {
    'batch.jobs': BatchJobs;
  }
}

export interface BatchOptions {
  /** clock of retention (tests) */
  now?: () => number;
}

/**
 * POST /verify/batch runs up to 100 items through the same verifiers as the single-item routes
 * (reached through `verifier.<type>` services) and records the job so GET /verify/batch/{job_id}
 * can return it later, from any replica sharing the store, for `batch.retention_seconds`.
 * Each item is one unit of the organisation's plan: the request itself paid one when it came in,
 * the other n − 1 are charged before any item runs, all or nothing (429 when fewer are left).
 */
export function createBatchPlugin(opts: BatchOptions = {}): Plugin {
  return {
    name: 'batch',
    provides: [BATCH_JOBS_SERVICE],
    // looked up per item: attestation registers after this plugin
    late: ['auth.ratelimit', 'attestation.batch', 'verifier.*'],
    settings: batchSettings,
    register(app: App) {
      const now = opts.now ?? Date.now;
      const jobs = new BatchJobs(app.store, app.settings(batchSettings), now);
      app.provide(BATCH_JOBS_SERVICE, jobs);
      // besides the sweep after each new job, so an idle server also lets expired jobs go
      app.every(SWEEP_EVERY_MS, () => jobs.sweep(), { onError: (err) => app.log.warn({ err }, 'batch retention sweep failed') });

      app.route({
        method: 'POST',
        path: '/verify/batch',
        auth: 'apiKey',
        scope: 'verify:read',
        verification: { attest: false },
        bodyLimit: 4 * 1024 * 1024,
        schema: { body: `${S}/request.json`, response: `${S}/response.json` },
        async handler(ctx) {
          const { items } = ctx.body as { items: BatchItem[] };
          await app.service('auth.ratelimit')?.charge(ctx, items.length - 1);
          const created = new Date(now()).toISOString();
          const results = await runBatch(app, items, ctx.principal, ctx.signal);
          const job: StoredJob = {
            job_id: randomUUID(),
            org_id: ctx.principal!.orgId,
            status: 'completed',
            created_at: created,
            completed_at: new Date(now()).toISOString(),
            results,
          };
          await jobs.save(job);
          // expired jobs are removed a page at a time as new ones arrive; a failure here loses nothing
          jobs.sweep().catch((err) => app.log.warn({ err }, 'batch retention sweep failed'));
          return { body: { job_id: job.job_id, status: job.status, created_at: job.created_at, completed_at: job.completed_at, total: results.length, items: results } };
        },
      });

      app.route({
        method: 'GET',
        path: '/verify/batch/:job_id',
        auth: 'apiKey',
        scope: 'verify:read',
        schema: { params: `${S}/job-params.json`, response: `${S}/job.json` },
        async handler(ctx) {
          const job = await jobs.get(ctx.params.job_id);
          if (!job) throw new HttpError(BatchProblems.jobNotFound, `no batch job ${ctx.params.job_id}`);
          if (job.org_id !== ctx.principal!.orgId) throw new HttpError(BatchProblems.otherOrganization, 'this batch job belongs to another organization');
          return {
            body: {
              job_id: job.job_id,
              status: job.status,
              created_at: job.created_at,
              completed_at: job.completed_at,
              expires_at: job.expires_at,
              total: job.total,
              results_truncated: job.results_truncated,
              results: job.results,
            },
          };
        },
      });
    },
  };
}

export default createBatchPlugin();
