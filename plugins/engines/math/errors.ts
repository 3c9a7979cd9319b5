import { defineProblem } from '../../../core/errors.js';

/** Constraint ids of the math engine: every BLOCKED verdict names one of these. */
export const C = {
  inputTooLong: 'math_verifier.input_too_long',
  depthExceeded: 'math_verifier.depth_exceeded',
  disallowed: 'math_verifier.disallowed_construct',
  parseError: 'math_verifier.parse_error',
  ambiguous: 'math_verifier.ambiguous_implicit_multiplication',
  cost: 'math_verifier.compute_cost_exceeded',
  divisionByZero: 'math_verifier.division_by_zero',
  domain: 'math_verifier.domain_error',
  numericOnly: 'math_verifier.numeric_agreement_only',
  tolerance: 'math_verifier.tolerance_exceeded',
  invalidTolerance: 'math_verifier.invalid_tolerance',
  invalidExpected: 'math_verifier.invalid_expected_value',
  invalidRequest: 'math_verifier.invalid_request',
  timeout: 'math_verifier.timeout',
  engineError: 'math_verifier.engine_error',
  unavailable: 'math_verifier.engine_unavailable',
} as const;

export const MathProblems = {
  unavailable: defineProblem('math_engine_unavailable', 503, 'Math engine unavailable'),
} as const;

/** A refusal raised while checking or evaluating; the engine turns it into a BLOCKED verdict. */
export class MathRefusal extends Error {
  constructor(
    readonly constraintId: string,
    message: string,
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'MathRefusal';
  }
}
