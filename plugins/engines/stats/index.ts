import type { App, Plugin, Verifier } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';
import { LIMITS, statsVerifier } from './verifier.js';
import type { PrepareInput, Prepared } from './engine.js';
import { DEFAULT_MAX_COLUMNS, statsSettings } from './settings.js';

export { LIMITS } from './verifier.js';
export { parseCsv } from './csv.js';
export { compileQuery, parsePattern } from './query.js';

function settings(app: App): Omit<SandboxOptions, 'nodePath'> {
  const c = app.settings(statsSettings);
  return { timeoutMs: c.timeout_ms ?? 10_000, heapMb: c.heap_mb ?? 128, concurrency: c.concurrency ?? 2, maxQueue: 32 };
}

export { DEFAULT_MAX_COLUMNS } from './settings.js';

function maxColumns(app: App): number {
  return app.settings(statsSettings).max_columns ?? DEFAULT_MAX_COLUMNS;
}

/** `nodePath` lets a deployment (or a test) point the sandbox at another node binary. */
export function createStatsPlugin(opts: { nodePath?: string } = {}): Plugin {
  return {
    name: 'stats',
    provides: ['verifier.stats'],
    /** its name before 0.x: still accepted in plugins.disabled, with a warning */
    aliases: ['engine-stats'],
    settings: statsSettings,
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
