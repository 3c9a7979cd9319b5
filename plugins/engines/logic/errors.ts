import { defineProblem } from '../../../core/errors.js';

/**
 * Every way /verify/logic can end without a SAT/UNSAT verdict, declared once: the constraint id
 * the DiagnosticResult carries, the HTTP status, and whether the verdict is BLOCKED (a failure to
 * verify or a policy block) or UNVERIFIABLE (the solver answered but could not decide).
 * The endpoint answers these with its own body (`status` ERROR/BLOCKED + `error`), as the spec
 * documents for it, except the 400s, which are problem+json (LogicProblems below); malformed request
 * bodies are the kernel's validation problem.
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
  // a query no formula can be read from is refused as validation (400): the spec keeps 422 for consensus confidence
  translation_invalid: { constraintId: 'logic_verifier.translation_invalid', httpStatus: 400, diagnostic: 'BLOCKED' },
});

/**
 * The 400s of /verify/logic (a malformed or ill-typed formula, text no formula can be read from)
 * are problem+json like every validation failure of the API; the endpoint's own members (`error`,
 * `provider_used`, `diagnostic`, `translation`) travel as extension members of the problem.
 */
export const LogicProblems = {
  syntax: defineProblem('logic_syntax_error', 400, 'Malformed logic query'),
  type: defineProblem('logic_type_error', 400, 'Ill-typed logic query'),
  translation_invalid: defineProblem('logic_translation_invalid', 400, 'No formula could be read from the query'),
} as const;
