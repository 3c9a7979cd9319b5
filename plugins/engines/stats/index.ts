import type { App, MultipartBody, Plugin, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { blocked } from '../../../core/verdict.js';
import { C, StatsProblems } from './errors.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';
import { csvProblem, LIMITS, queryRefused, runPrepared } from './verifier.js';
import type { PrepareInput, Prepared } from './engine.js';

export { LIMITS } from './verifier.js';
export { parseCsv } from './csv.js';
export { compileQuery, parsePattern } from './query.js';

const S = 'https://proofgate.dev/schemas/stats';
/** room for the multipart boundary and the query field around the file */
const ENVELOPE_BYTES = 64 * 1024;

function settings(app: App): Omit<SandboxOptions, 'nodePath'> {
  const c = (app.config.plugin_config?.stats ?? {}) as Record<string, unknown>;
  const int = (key: string, dflt: number) => (c[key] as number | undefined) ?? dflt;
  return { timeoutMs: int('timeout_ms', 10_000), heapMb: int('heap_mb', 128), concurrency: int('concurrency', 2), maxQueue: 32 };
}

/** header columns accepted by default; `plugin_config.stats.max_columns` sets another cap (issue 12, item 8) */
export const DEFAULT_MAX_COLUMNS = 1000;

function maxColumns(app: App): number {
  return (((app.config.plugin_config?.stats ?? {}) as Record<string, unknown>).max_columns as number | undefined) ?? DEFAULT_MAX_COLUMNS;
}

/** plugin_config.stats, checked by the kernel at start-up */
const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    timeout_ms: { type: 'integer', minimum: 1, maximum: 60_000 },
    heap_mb: { type: 'integer', minimum: 1, maximum: 2048 },
    concurrency: { type: 'integer', minimum: 1, maximum: 16 },
    max_columns: { type: 'integer', minimum: 1, maximum: 100_000 },
  },
};

/** `nodePath` lets a deployment (or a test) point the sandbox at another node binary. */
export function createStatsPlugin(opts: { nodePath?: string } = {}): Plugin {
  return {
    name: 'stats',
    /** its name before 0.x: still accepted in plugins.disabled, with a warning */
    aliases: ['engine-stats'],
    config: { schema: CONFIG_SCHEMA },
    register(app: App) {
      const sandbox = new Sandbox({ ...settings(app), nodePath: opts.nodePath });
      const columnCap = maxColumns(app);
      // CSV parsing and the query's check grow with the upload: the worker pool, not the event loop
      const engine = app.engine({ name: 'stats', version: '1.0.0', module: new URL('./engine.js', import.meta.url) });
      const prepare = (csv: Uint8Array | string, query: string, signal?: AbortSignal) =>
        engine.run<Prepared>('prepareStats', { csv, query, maxCells: LIMITS.cells, maxColumns: columnCap } satisfies PrepareInput, { signal });
      // a start-up probe makes a broken sandbox visible in the logs before the first upload
      void sandbox.run({ probe: true }).then((o) => {
        if (o.kind !== 'result') app.log.warn({ outcome: o }, 'statistics sandbox probe failed; /verify/stats will answer 503');
      });
      app.route({
        method: 'POST',
        path: '/verify/stats',
        auth: 'apiKey',
        scope: 'verify:read',
        tags: ['verification'],
        bodyType: 'multipart',
        bodyLimit: LIMITS.fileBytes + ENVELOPE_BYTES,
        schema: { body: `${S}/request.json`, response: `${S}/response.json` },
        async handler(ctx) {
          const body = ctx.body as MultipartBody;
          const files = body.files.filter((f) => f.field === 'file');
          if (files.length !== 1) throw new HttpError(StatsProblems.missingFile, 'send exactly one CSV file in the multipart field "file"');
          if (files[0].data.length > LIMITS.fileBytes) throw new HttpError(StatsProblems.tooManyCells, `the CSV exceeds ${LIMITS.fileBytes} bytes`);
          const p = await prepare(files[0].data, body.fields.query, ctx.signal);
          if (!p.ok && p.kind !== 'query') throw csvProblem(p, columnCap);
          const verdict = p.ok ? await runPrepared(sandbox, p, ctx.signal) : queryRefused(p.message);
          return { status: 200, verdict };
        },
      });
      // composite routes: input {csv: string, query: string}; an unusable CSV is a BLOCKED verdict
      app.provide<Verifier>('verifier.stats', {
        async verify(input, o) {
          const { csv, query } = input;
          if (typeof csv !== 'string' || typeof query !== 'string' || Buffer.byteLength(csv) > LIMITS.fileBytes) {
            return blocked('A statistics request needs csv and query strings.', C.validation, { error: 'validation_error' });
          }
          const p = await prepare(csv, query, o?.signal);
          if (p.ok) return runPrepared(sandbox, p, o?.signal);
          if (p.kind === 'query') return queryRefused(p.message);
          return blocked(`The CSV was refused: ${csvProblem(p, columnCap).detail}.`, C.validation, { error: 'validation_error' });
        },
      });
    },
  };
}

export default createStatsPlugin();
