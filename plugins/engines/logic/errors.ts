/**
 * Every way /verify/logic can end without a SAT/UNSAT verdict, declared once: the constraint id
 * the DiagnosticResult carries, the HTTP status, and whether the verdict is BLOCKED (a failure to
 * verify or a policy block) or UNVERIFIABLE (the solver answered but could not decide).
 * The endpoint answers these with its own body (`status` ERROR/BLOCKED + `error`), as the spec
 * documents for it, so there are no problem+json types of its own; malformed request bodies are
 * the kernel's validation problem.
 */
export type FailureCode =
  | 'syntax'
  | 'type'
  | 'unknown_operator'
  | 'limit'
  | 'timeout'
  | 'unknown'
  | 'engine_unavailable'
  | 'translator_unavailable'
  | 'translation_failed'
  | 'translation_invalid';

export interface FailureDef {
  constraintId: string;
  httpStatus: number;
  diagnostic: 'BLOCKED' | 'UNVERIFIABLE';
}

export const FAILURES: Readonly<Record<FailureCode, FailureDef>> = Object.freeze({
  syntax: { constraintId: 'logic_verifier.syntax_error', httpStatus: 400, diagnostic: 'BLOCKED' },
  type: { constraintId: 'logic_verifier.type_error', httpStatus: 400, diagnostic: 'BLOCKED' },
  unknown_operator: { constraintId: 'logic_verifier.unknown_operator', httpStatus: 403, diagnostic: 'BLOCKED' },
  limit: { constraintId: 'logic_verifier.limit_exceeded', httpStatus: 413, diagnostic: 'BLOCKED' },
  // a well-formed query the solver could not finish in its budget: answered, not a server fault
  timeout: { constraintId: 'logic_verifier.timeout', httpStatus: 200, diagnostic: 'BLOCKED' },
  unknown: { constraintId: 'logic_verifier.solver_unknown', httpStatus: 200, diagnostic: 'UNVERIFIABLE' },
  engine_unavailable: { constraintId: 'logic_verifier.engine_unavailable', httpStatus: 503, diagnostic: 'BLOCKED' },
  translator_unavailable: { constraintId: 'logic_verifier.translator_unavailable', httpStatus: 503, diagnostic: 'BLOCKED' },
  translation_failed: { constraintId: 'logic_verifier.translation_failed', httpStatus: 503, diagnostic: 'BLOCKED' },
  translation_invalid: { constraintId: 'logic_verifier.translation_invalid', httpStatus: 422, diagnostic: 'BLOCKED' },
});
