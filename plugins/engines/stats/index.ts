import type { App, Plugin, Verifier } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';
import { LIMITS, statsVerifier } from './verifier.js';
import type { PrepareInput, Prepared } from './engine.js';

export { LIMITS } from './verifier.js';
export { parseCsv } from './csv.js';
export { compileQuery, parsePattern } from './query.js';

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
    provides: ['verifier.stats'],
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
      registerRoutes(app, { prepare, sandbox, columnCap });
      app.provide('verifier.stats', statsVerifier(prepare, sandbox, columnCap));
    },
  };
}

export default createStatsPlugin();
