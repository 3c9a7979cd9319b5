import type { App, Plugin, Verifier } from '../../../core/types.js';
import { describeFieldErrors } from '../../../core/errors.js';
import { blocked, type DiagnosticResult } from '../../../core/verdict.js';
import { ENGINE_VERSION, MAX_TIMEOUT_MS } from './outcome.js';
import { registerRoutes, SCHEMA_BASE } from './routes.js';
import { createLogicVerifier, type LlmTranslator, type LogicRequest, type LogicVerifier } from './verifier.js';
import { logicSettings } from './settings.js';

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
  return app.settings(logicSettings).timeout_ms;
}

/**
 * A composite route's input is checked against the route's own body schema; a refusal is a BLOCKED
 * verdict for that item (not a 400 for the whole request), its field errors in the message.
 */
function checkedRequest(app: App, input: Record<string, unknown>): LogicRequest | DiagnosticResult {
  // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
  const body = { ...input };
  const errors = app.validate(`${SCHEMA_BASE}/request.json`, body);
  if (!errors.length) return body as unknown as LogicRequest;
  return blocked(`Invalid logic request: ${describeFieldErrors(errors)}.`, INVALID_REQUEST, { is_valid: false, errors });
}

const INVALID_REQUEST = 'logic_verifier.invalid_request';

const plugin: Plugin = {
  name: 'logic',
  provides: ['verifier.logic'],
  optional: ['llm.translator'],
  settings: logicSettings,
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
    let closed = false;
    app.onClose(() => {
      closed = true;
    });
    let warming: Promise<void> | null = null;
    const warmUp = (): Promise<void> =>
      (warming ??= engine.run('warmup', null, { timeoutMs: WARMUP_TIMEOUT_MS, warmup: true }).then(
        () => {
          warm = true;
        },
        (err: unknown) => {
          warming = null;
          // a warm-up cut short by shutdown (or a start-up that failed elsewhere) is expected
          if (!closed) app.log.error({ err }, 'z3 warm-up failed; the next query retries it');
        },
      ));
    if (app.warmEngines) void warmUp();
    app.readiness('z3', () => warm || !app.warmEngines);
    const tracked = {
      run: async <O>(fn: string, input: unknown, opts?: { timeoutMs?: number; signal?: AbortSignal; queueBudget?: boolean }): Promise<O> => {
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
      translator: () => app.service('llm.translator'),
      timeoutMs,
    });
    // composite routes get the same flow as the route, and the unified verdict it carries
    app.provide('verifier.logic', {
      async verify(input, opts) {
        const req = checkedRequest(app, input);
        return 'status' in req ? req : (await verifier.verify(req, opts?.signal)).body.diagnostic;
      },
    });
    registerRoutes(app, verifier);
  },
};

export default plugin;
