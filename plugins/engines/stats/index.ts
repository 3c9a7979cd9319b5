import type { App, MultipartBody, Plugin, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { blocked, diagnosticBody } from '../../../core/verdict.js';
import { C, StatsProblems } from './errors.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';
import { LIMITS, readCsv, verifyStats } from './verify.js';

export { LIMITS } from './verify.js';
export { parseCsv } from './csv.js';
export { compileQuery, parsePattern } from './query.js';

const S = 'https://proofgate.dev/schemas/stats';
/** room for the multipart boundary and the query field around the file */
const ENVELOPE_BYTES = 64 * 1024;

function settings(app: App): Omit<SandboxOptions, 'nodePath'> {
  const c = (app.config.plugin_config?.stats ?? {}) as Record<string, unknown>;
  const int = (key: string, dflt: number, max: number) => {
    const v = c[key];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw new Error(`plugin_config.stats.${key} must be an integer from 1 to ${max}`);
    return v;
  };
  return { timeoutMs: int('timeout_ms', 10_000, 60_000), heapMb: int('heap_mb', 128, 2048), concurrency: int('concurrency', 2, 16), maxQueue: 32 };
}

/** `nodePath` lets a deployment (or a test) point the sandbox at another node binary. */
export function createStatsPlugin(opts: { nodePath?: string } = {}): Plugin {
  return {
    name: 'engine-stats',
    register(app: App) {
      const sandbox = new Sandbox({ ...settings(app), nodePath: opts.nodePath });
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
          const table = readCsv(files[0].data);
          const verdict = await verifyStats(sandbox, table, body.fields.query, ctx.signal);
          return { status: 200, body: diagnosticBody(verdict) };
        },
      });
      // composite routes: input {csv: string, query: string}; an unusable CSV is a BLOCKED verdict
      app.provide<Verifier>('verifier.stats', {
        async verify(input, o) {
          const { csv, query } = input;
          if (typeof csv !== 'string' || typeof query !== 'string' || Buffer.byteLength(csv) > LIMITS.fileBytes) {
            return blocked('A statistics request needs csv and query strings.', C.validation, { error: 'validation_error' });
          }
          let table;
          try {
            table = readCsv(Buffer.from(csv, 'utf8'));
          } catch (err) {
            return blocked(`The CSV was refused: ${(err as Error).message}.`, C.validation, { error: 'validation_error' });
          }
          return verifyStats(sandbox, table, query, o?.signal);
        },
      });
    },
  };
}

export default createStatsPlugin();
