import type { App, Plugin } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { codeAnalyzer, codeVerifier, withPythonSwitch, type CodeAnalyzer } from './verifier.js';
import { ENGINE_NAME, ENGINE_VERSION } from './verdict.js';
import { codeSettings } from './settings.js';

/**
 * POST /verify/code: proves code unsafe (or free of every construct the rule set names) on its
 * syntax tree. Python is parsed by a hand-written parser where it reproduces tree-sitter's tree, and by
 * tree-sitter (wasm) elsewhere; JavaScript by acorn, TypeScript by sucrase + acorn; parsing and rules
 * run in the worker pool.
 *
 * Reuse (A2A code guard): take the `code.analyzer` service, which runs the same analysis in this
 * plugin's worker pool with a deadline (one parser instance per process). The in-process analysis
 * functions (tests, benches) are in analyze.ts and deliberately not re-exported here: the main thread
 * loads this file, and re-exporting them loaded acorn, sucrase and tree-sitter's glue there too, ~10 MB
 * of RSS that only the worker uses.
 */
export const CODE_ANALYZER_SERVICE = 'code.analyzer';

function register(app: App): void {
  const engine = withPythonSwitch(app.settings(codeSettings), app.engine({
    name: ENGINE_NAME,
    version: ENGINE_VERSION,
    module: new URL('./engine.js', import.meta.url),
    warmup: 'warmup',
  }));
  registerRoutes(app, engine);
  app.provide(CODE_ANALYZER_SERVICE, codeAnalyzer(engine));
  // composite routes (batch items of type `code`, consensus, agents) reach the engine through this service
  app.provide('verifier.code', codeVerifier(app, engine));
}

declare module '../../../core/types.js' {
  interface Services {
    'code.analyzer': CodeAnalyzer;
  }
}

const plugin: Plugin = { name: 'code', settings: codeSettings, provides: [CODE_ANALYZER_SERVICE, 'verifier.code'], register };
export default plugin;

export { heuristicSignals, textSignals, advisoryChecks, GUARD_PATTERNS, type TextSignal } from './advisory.js';
export type { CodeAnalyzer } from './verifier.js';
export { verdictFor, resolveLanguage, ENGINE_NAME, ENGINE_VERSION, MAX_CODE_BYTES, CONSTRAINTS } from './verdict.js';
export { BLOCKING, RULES_VERSION, SUPPORTED_LANGUAGES, isBlocking, type Analysis, type Finding, type Severity, type Language, type AdvisoryCheck } from './types.js';
