import { randomUUID } from 'node:crypto';
import type { App, Plugin } from '../../core/types.js';
import { HttpError } from '../../core/errors.js';
import { BatchProblems } from './errors.js';
import { runBatch, type ItemResult } from './run.js';
import type { BatchItem } from './items.js';

export type { BatchAttestor } from './run.js';

interface StoredJob {
  job_id: string;
  org_id: string;
  status: 'completed';
  created_at: string;
  completed_at: string;
  results: ItemResult[];
}

const S = 'https://proofgate.dev/schemas/batch';

/**
 * POST /verify/batch runs up to 100 items through the same verifiers as the single-item routes
 * (reached through `verifier.<type>` services) and records the job so GET /verify/batch/{job_id}
 * can return it later, from any replica sharing the store.
 */
function register(app: App): void {
  const jobs = app.store.collection<StoredJob>('batch_jobs');

  app.route({
    method: 'POST',
    path: '/verify/batch',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['verification'],
    bodyLimit: 4 * 1024 * 1024,
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    async handler(ctx) {
      const { items } = ctx.body as { items: BatchItem[] };
      const created = new Date().toISOString();
      const results = await runBatch(app, items, ctx.principal, ctx.signal);
      const job: StoredJob = {
        job_id: randomUUID(),
        org_id: ctx.principal!.orgId,
        status: 'completed',
        created_at: created,
        completed_at: new Date().toISOString(),
        results,
      };
      await jobs.put(job.job_id, JSON.parse(JSON.stringify(job)) as StoredJob);
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
      return { body: { job_id: job.job_id, status: job.status, created_at: job.created_at, completed_at: job.completed_at, results: job.results } };
    },
  });
}

const plugin: Plugin = { name: 'batch', register };
export default plugin;
