import type { App, Plugin, Verifier } from '../../../core/types.js';
import { ENGINE_VERSION, MAX_TIMEOUT_MS } from './outcome.js';
import { registerRoutes } from './routes.js';
import { createLogicVerifier, type LlmTranslator, type LogicRequest, type LogicVerifier } from './verifier.js';

/**
 * Logic constraints (satisfiability) with z3: `POST /verify/logic`, plus the `verifier.logic`
 * service so batch, consensus and the A2A gateway reuse the same flow. z3 runs in its own
 * one-thread pool, warmed at start-up; /readyz waits for it.
 */
export { createLogicVerifier, PROVIDER_DSL, PROVIDER_NONE } from './verifier.js';
export type { LlmTranslator, LogicRequest, LogicVerifier } from './verifier.js';
export type { LogicBody, LogicReply } from './verdict.js';
export { parseQuery, isDslInput, LIMITS } from './dsl.js';

/** loading z3 in a fresh worker; generous because a busy host slows wasm compilation a lot */
const WARMUP_TIMEOUT_MS = 60_000;

/** plugin_config.logic.timeout_ms: per-query solver budget (default 5000, at most 60000) */
function configuredTimeout(app: App): number | undefined {
  return app.config.plugin_config?.logic?.timeout_ms as number | undefined;
}

/** plugin_config.logic, checked by the kernel at start-up */
const CONFIG_SCHEMA = {
  type: 'object',
  properties: { timeout_ms: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_MS } },
};

/** A composite route's input is untyped: take only well-typed fields (a missing query is an empty, refused one). */
function toRequest(input: Record<string, unknown>): LogicRequest {
  const req: LogicRequest = { query: typeof input.query === 'string' ? input.query : '' };
  if (typeof input.provider === 'string') req.provider = input.provider;
  if (Number.isInteger(input.timeout_ms) && (input.timeout_ms as number) > 0) req.timeout_ms = input.timeout_ms as number;
  return req;
}

const plugin: Plugin = {
  name: 'logic',
  config: { schema: CONFIG_SCHEMA },
  register(app: App) {
    const timeoutMs = configuredTimeout(app);
    const engine = app.engine({
      name: 'logic',
      version: ENGINE_VERSION,
      module: new URL('./engine.js', import.meta.url),
      pool: { name: 'z3', threads: 1 },
    });
    // z3's wasm takes 0.3 s to load in an idle worker and several seconds on a loaded machine. A
    // query waits for the warm-up instead of spending its own deadline on it; after a deadline kill
    // (the worker is replaced, cold) the warm-up runs again.
    let warm = false;
    let warming: Promise<void> | null = null;
    const warmUp = (): Promise<void> =>
      (warming ??= engine.run('warmup', null, { timeoutMs: WARMUP_TIMEOUT_MS }).then(
        () => {
          warm = true;
        },
        (err: unknown) => {
          warming = null;
          app.log.error({ err }, 'z3 warm-up failed; the next query retries it');
        },
      ));
    void warmUp();
    app.readiness('z3', () => warm);
    const tracked = {
      run: async <O>(fn: string, input: unknown, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<O> => {
        if (!warm) await warmUp();
        try {
          return await engine.run<O>(fn, input, opts);
        } catch (err) {
          if ((err as { kind?: string })?.kind === 'timeout') {
            warm = false;
            warming = null;
            void warmUp();
          }
          throw err;
        }
      },
    };
    const verifier: LogicVerifier = createLogicVerifier({
      engine: tracked,
      translator: () => app.service<LlmTranslator>('llm.translator'),
      timeoutMs,
    });
    // composite routes get the same flow as the route, and the unified verdict it carries
    app.provide<Verifier>('verifier.logic', {
      verify: async (input, opts) => (await verifier.verify(toRequest(input), opts?.signal)).body.diagnostic,
    });
    registerRoutes(app, verifier);
  },
};

export default plugin;
