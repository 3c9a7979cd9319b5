import type { EngineHandle, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/kit.js';
import { blocked, reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { C, MathProblems } from './errors.js';
import { MAX_EXPRESSION_CHARS } from './meta.js';
import type { MathRequest } from './engine.js';

/**
 * A worker that produced no verdict fails closed. A deadline is a verdict-level refusal
 * (BLOCKED `math_verifier.timeout`, decisions §1: timeouts are BLOCKED), as is a crashed task
 * (`math_verifier.engine_error`); an unavailable pool (queue full, shutting down) is overload and
 * answers 503 problem+json carrying the BLOCKED verdict's constraint id.
 */
export function failClosed(err: unknown): DiagnosticResult {
  const f = engineFailure(err, () =>
    new HttpError(MathProblems.unavailable, 'The math engine is overloaded or unavailable.', {
      constraintId: C.unavailable,
      headers: { 'retry-after': '1' },
    }),
  );
  if (!f) throw err;
  if (f.kind === 'timeout') {
    const msg = 'The math engine exceeded its deadline.';
    return blocked(msg, C.timeout, { is_valid: false, error: 'timeout', message: msg });
  }
  const msg = 'The math engine failed while verifying.';
  return blocked(msg, C.engineError, { is_valid: false, error: 'engine_error', message: msg });
}

/** one verification in the worker pool, under the configured task deadline (workers.task_timeout_ms) */
export async function runMath(engine: EngineHandle, input: MathRequest, signal?: AbortSignal): Promise<DiagnosticResult> {
  try {
    return reviveDiagnostic(await engine.run('verify', input, { signal }));
  } catch (err) {
    return failClosed(err);
  }
}

const isNum = (v: unknown) => typeof v === 'string' || typeof v === 'number';

/**
 * `verifier.math` for composite routes (batch): the route schema's checks, but an unusable input
 * becomes a BLOCKED verdict for that item instead of a 400 for the whole request.
 */
export function mathVerifier(engine: EngineHandle): Verifier {
  return {
    async verify(raw, opts = {}) {
      const refuse = (msg: string) => blocked(msg, C.invalidRequest, { is_valid: false, error: 'invalid_request', message: msg });
      const { expression, context, expected_value, tolerance } = raw as Record<string, unknown>;
      if (typeof expression !== 'string' || !expression || expression.length > MAX_EXPRESSION_CHARS) {
        return refuse(`expression must be a non-empty string of at most ${MAX_EXPRESSION_CHARS} characters.`);
      }
      if (context !== undefined && (typeof context !== 'object' || context === null || Array.isArray(context))) return refuse('context must be an object.');
      const domain = (context as { domain?: unknown } | undefined)?.domain;
      if (domain !== undefined && domain !== 'real' && domain !== 'complex') return refuse("context.domain must be 'real' or 'complex'.");
      if (expected_value !== undefined && !isNum(expected_value)) return refuse('expected_value must be a string or a number.');
      if (tolerance !== undefined && (!isNum(tolerance) || expected_value === undefined)) return refuse('tolerance needs an expected_value and must be a string or a number.');
      const input: MathRequest = { expression };
      if (domain !== undefined) input.context = { domain: domain as 'real' | 'complex' };
      if (expected_value !== undefined) input.expected_value = expected_value as string | number;
      if (tolerance !== undefined) input.tolerance = tolerance as string | number;
      return runMath(engine, input, opts.signal);
    },
  };
}
