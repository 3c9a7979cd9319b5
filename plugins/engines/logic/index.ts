import type { App, Plugin } from '../../../core/types.js';
import { ENGINE_VERSION, MAX_TIMEOUT_MS } from './outcome.js';
import { registerRoutes } from './routes.js';
import { createLogicVerifier, type LlmTranslator, type LogicVerifier } from './service.js';

/**
 * Logic constraints (satisfiability) with z3: `POST /verify/logic`, plus the `engine.logic`
 * service so batch, consensus and the A2A gateway reuse the same flow. z3 runs in its own
 * one-thread pool, warmed at start-up; /readyz waits for it.
 */
export { createLogicVerifier, PROVIDER_DSL, PROVIDER_NONE } from './service.js';
export type { LlmTranslator, LogicRequest, LogicVerifier } from './service.js';
export type { LogicBody, LogicReply } from './verdict.js';
export { parseQuery, isDslInput, LIMITS } from './dsl.js';

/** plugin_config.logic.timeout_ms: per-query solver budget (default 5000, at most 60000) */
function configuredTimeout(app: App): number | undefined {
  const v = app.config.plugin_config?.logic?.timeout_ms;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_TIMEOUT_MS) {
    throw new Error(`plugin_config.logic.timeout_ms must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return v;
}

const plugin: Plugin = {
  name: 'logic',
  register(app: App) {
    const timeoutMs = configuredTimeout(app);
    const engine = app.engine({
      name: 'logic',
      version: ENGINE_VERSION,
      module: new URL('./engine.js', import.meta.url),
      pool: { name: 'z3', threads: 1 },
    });
    let warm = false;
    engine.run('warmup', null, { timeoutMs: 30_000 }).then(
      () => (warm = true),
      (err: unknown) => app.log.error({ err }, 'z3 warm-up failed; the first query will retry'),
    );
    // not ready until z3 is loaded
    app.readiness('z3', () => warm);
    // any answer from the worker proves z3 loaded, so a later success heals a failed warm-up
    const tracked = {
      run: <O>(fn: string, input: unknown, opts?: { timeoutMs?: number; signal?: AbortSignal }) =>
        engine.run<O>(fn, input, opts).then((r) => ((warm = true), r)),
    };
    const verifier: LogicVerifier = createLogicVerifier({
      engine: tracked,
      translator: () => app.service<LlmTranslator>('llm.translator'),
      timeoutMs,
    });
    app.provide('engine.logic', verifier);
    registerRoutes(app, verifier);
  },
};

export default plugin;
