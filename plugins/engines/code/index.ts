import type { App, EngineHandle, Plugin } from '../../../core/types.js';
import { codeVerifier, registerRoutes, CODE_TASK_TIMEOUT_MS } from './routes.js';
import { ENGINE_NAME, ENGINE_VERSION } from './verdict.js';
import type { Analysis, Language } from './types.js';

/**
 * POST /verify/code: proves code unsafe (or free of every construct the rule set names) on its
 * syntax tree. Python is parsed by tree-sitter (wasm), JavaScript by acorn, TypeScript by sucrase +
 * acorn; parsing and rules run in the worker pool.
 *
 * Reuse (A2A code guard): either import the analysis functions below (in-process, synchronous after
 * `initPython()`), or take the `code.analyzer` service, which runs the same analysis in the worker
 * pool with a deadline.
 */
export interface CodeAnalyzer {
  /** Parse-tree analysis in a worker. Rejects with the pool's EngineError on timeout/crash: fail closed. */
  analyze(code: string, language?: Language, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Analysis>;
}

export const CODE_ANALYZER_SERVICE = 'code.analyzer';

function analyzer(engine: EngineHandle): CodeAnalyzer {
  return {
    analyze: (code, language = 'python', opts = {}) =>
      engine.run<Analysis>('analyze', { code, language }, { timeoutMs: opts.timeoutMs ?? CODE_TASK_TIMEOUT_MS, signal: opts.signal }),
  };
}

function register(app: App): void {
  const engine = app.engine({
    name: ENGINE_NAME,
    version: ENGINE_VERSION,
    module: new URL('./engine.js', import.meta.url),
    warmup: 'warmup',
  });
  registerRoutes(app, engine);
  app.provide<CodeAnalyzer>(CODE_ANALYZER_SERVICE, analyzer(engine));
  // composite routes (batch items of type `code`, consensus, agents) reach the engine through this service
  app.provide('verifier.code', codeVerifier(app, engine));
}

const plugin: Plugin = { name: 'code', register };
export default plugin;

export { analyzeCode, analyzeCodeSync, analyzePython, analyzePythonSync, analyzeJavaScript, analyzeTypeScript, initPython, pythonReady } from './analyze.js';
export { heuristicSignals, textSignals, advisoryChecks, GUARD_PATTERNS, type TextSignal } from './advisory.js';
export { verdictFor, resolveLanguage, ENGINE_NAME, ENGINE_VERSION, MAX_CODE_BYTES, CONSTRAINTS } from './verdict.js';
export { BLOCKING, RULES_VERSION, SUPPORTED_LANGUAGES, isBlocking, type Analysis, type Finding, type Severity, type Language, type AdvisoryCheck } from './types.js';
