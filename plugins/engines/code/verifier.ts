import type { App, EngineHandle, Verifier } from '../../../core/types.js';
import { describeFieldErrors, HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/plugin/kit.js';
import { reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { CodeProblems } from './errors.js';
import { CONSTRAINTS, MAX_CODE_BYTES, failed, resolveLanguage, unsupportedLanguage } from './verdict.js';
import type { CodeInput } from './engine.js';
import type { Analysis, Language } from './types.js';
import type { CodeSettings } from './settings.js';

/** Per-request deadline for parse + rules in the worker; 200 KB of Python takes well under a second. */
export const CODE_TASK_TIMEOUT_MS = 5_000;

/**
 * A worker that timed out or crashed produced no proof, so the answer fails closed: BLOCKED
 * `code_verifier.timeout` (a crash is reported under the same constraint with reason `crashed`;
 * both are "no verdict in time"). A full queue is overload: 503, like the other engines.
 */
export function failClosed(err: unknown, language: string): DiagnosticResult {
  const f = engineFailure(err, () => new HttpError(CodeProblems.engineUnavailable, 'the code engine is overloaded or starting', { headers: { 'retry-after': '1' } }));
  const reason = f?.kind ?? 'failed';
  const message = reason === 'timeout' ? 'analysis exceeded its time limit; nothing was proven' : 'analysis did not complete; nothing was proven';
  return failed(language, CONSTRAINTS.timeout, message, { reason });
}

/** One request's verdict: the language resolved here, parse + rules in the worker pool. */
export async function runCode(engine: EngineHandle, code: string, languageValue: unknown, signal?: AbortSignal): Promise<DiagnosticResult> {
  const language = resolveLanguage(languageValue);
  if (!language) return unsupportedLanguage(languageValue);
  try {
    return reviveDiagnostic(await engine.run('verify', { code, language }, { timeoutMs: CODE_TASK_TIMEOUT_MS, signal }));
  } catch (err) {
    return failClosed(err, language);
  }
}

/**
 * The `code.analyzer` service (other plugins, e.g. the A2A code guard): the bare parse-tree analysis
 * in a worker with a deadline. Rejects with the pool's EngineError on timeout/crash: the caller fails closed.
 */
export interface CodeAnalyzer {
  analyze(code: string, language?: Language, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Analysis>;
}

export function codeAnalyzer(engine: EngineHandle): CodeAnalyzer {
  return {
    analyze: (code, language = 'python', opts = {}) =>
      engine.run<Analysis>('analyze', { code, language }, { timeoutMs: opts.timeoutMs ?? CODE_TASK_TIMEOUT_MS, signal: opts.signal }),
  };
}

/** the /verify/code body schema: the route and `verifier.code` refuse exactly the same inputs */
export const CODE_REQUEST_SCHEMA = 'https://proofgate.dev/schemas/code/verify.request.json';

export const tooLarge = (bytes: number) => `code is ${bytes} bytes; the limit is ${MAX_CODE_BYTES}`;

/**
 * `verifier.code` for composite routes (batch, consensus, agents): the input is checked against the
 * route's own body schema and byte cap, but an unusable input becomes a BLOCKED verdict for that
 * item instead of a 400 (or 413) for the whole request.
 */
export function codeVerifier(app: App, engine: EngineHandle): Verifier {
  return {
    async verify(raw, opts = {}) {
      // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
      const body = { ...raw };
      const shown = typeof body.language === 'string' ? body.language.slice(0, 64) : 'python';
      const errors = app.validate(CODE_REQUEST_SCHEMA, body);
      if (errors.length) return failed(shown, CONSTRAINTS.invalidRequest, `Invalid code request: ${describeFieldErrors(errors)}.`, { errors });
      const { code, language } = body as unknown as CodeInput;
      const bytes = Buffer.byteLength(code, 'utf8');
      if (bytes > MAX_CODE_BYTES) return failed(shown, CONSTRAINTS.inputTooLarge, tooLarge(bytes), { bytes, max_bytes: MAX_CODE_BYTES });
      return runCode(engine, code, language, opts.signal);
    },
  };
}

/**
 * plugin_config.code.python_fast_parser: false sends every Python input to tree-sitter (the fast
 * parser is held to tree-sitter's trees by tests; this is the operator's way around it should one
 * ever be doubted). Each task then says so; with the default, tasks carry nothing extra.
 */
export function withPythonSwitch(settings: CodeSettings, engine: EngineHandle): EngineHandle {
  if (settings.python_fast_parser !== false) return engine;
  return {
    name: engine.name,
    version: engine.version,
    run: (fn, input, opts) => engine.run(fn, { ...(input as Record<string, unknown>), python_fast: false }, opts),
  };
}
