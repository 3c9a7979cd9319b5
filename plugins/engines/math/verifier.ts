import type { App, EngineHandle, Verifier } from '../../../core/types.js';
import { describeFieldErrors, HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/plugin/kit.js';
import { blocked, reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { C, MathProblems } from './errors.js';
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

/** the /verify/math body schema: the route and `verifier.math` refuse exactly the same inputs */
export const MATH_REQUEST_SCHEMA = 'https://proofgate.dev/schemas/math/request.json';

/**
 * `verifier.math` for composite routes (batch, consensus, agents): the input is checked against the
 * route's own body schema, but an unusable input becomes a BLOCKED verdict for that item instead
 * of a 400 for the whole request.
 */
export function mathVerifier(app: App, engine: EngineHandle): Verifier {
  return {
    async verify(raw, opts = {}) {
      // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
      const body = { ...raw };
      const errors = app.validate(MATH_REQUEST_SCHEMA, body);
      if (errors.length) {
        const msg = `Invalid math request: ${describeFieldErrors(errors)}.`;
        return blocked(msg, C.invalidRequest, { is_valid: false, error: 'invalid_request', message: msg, errors });
      }
      const { expression, context, expected_value, expected, tolerance } = body as unknown as MathRequest;
      const input: MathRequest = { expression };
      if (context?.domain !== undefined || context?.decimal_separator !== undefined) {
        input.context = {};
        if (context.domain !== undefined) input.context.domain = context.domain;
        if (context.decimal_separator !== undefined) input.context.decimal_separator = context.decimal_separator;
      }
      if (expected_value !== undefined) input.expected_value = expected_value;
      if (expected !== undefined) input.expected = expected;
      if (tolerance !== undefined) input.tolerance = tolerance;
      return runMath(engine, input, opts.signal);
    },
  };
}
