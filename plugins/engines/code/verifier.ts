import type { EngineHandle } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/kit.js';
import { reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { CodeProblems } from './errors.js';
import { CONSTRAINTS, failed, resolveLanguage, unsupportedLanguage } from './verdict.js';
import type { Analysis, Language } from './types.js';

/** Per-request deadline for parse + rules in the worker; 200 KB of Python takes well under a second. */
export const CODE_TASK_TIMEOUT_MS = 5_000;

/**
 * A worker that timed out or crashed produced no proof, so the answer fails closed: BLOCKED
 * `code_verifier.timeout` (a crash is reported under the same constraint with reason `crashed`;
 * both are "no verdict in time"). A full queue is overload: 503, like the other engines.
 */
export function failClosed(err: unknown, language: string): DiagnosticResult {
  const f = engineFailure(err, () => new HttpError(CodeProblems.engineUnavailable, 'the code engine is overloaded or starting'));
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
