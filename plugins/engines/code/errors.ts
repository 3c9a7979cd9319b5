import { defineProblem } from '../../../core/errors.js';

/**
 * Problems the code plugin raises as HTTP errors. Verdicts (including BLOCKED ones: unsupported
 * language, parse error, timeout) are DiagnosticResults with status 200, not problems.
 */
export const CodeProblems = {
  inputTooLarge: defineProblem('code_verifier.input_too_large', 413, 'Code too large'),
  engineUnavailable: defineProblem('code_verifier.engine_unavailable', 503, 'Code engine unavailable'),
} as const;
