import { defineProblem } from '../../../core/errors.js';

/** Constraint ids of natural-language verification (the inner math engine's ids pass through unchanged). */
export const NL = {
  llmTranslation: 'nl_verifier.llm_translation',
  notMath: 'nl_verifier.not_math_query',
  translatorUnavailable: 'nl_verifier.translator_unavailable',
  translationFailed: 'nl_verifier.translation_failed',
  translationTimeout: 'nl_verifier.translation_timeout',
  translationInvalid: 'nl_verifier.translation_invalid',
  notEvaluable: 'nl_verifier.not_evaluable',
  mathUnavailable: 'nl_verifier.math_unavailable',
  /** the same id the batch uses for a math item whose attestation could not be signed */
  signingError: 'api.attestation.signing_error',
} as const;

export const NlProblems = {
  unknownProvider: defineProblem('unknown_provider', 400, 'Unknown language-model provider'),
  providerNotConfigured: defineProblem('provider_not_configured', 400, 'Language-model provider not configured'),
} as const;

/**
 * Math refusals that are policy (the expression is outside what the service will evaluate) rather
 * than a translation that failed to evaluate: the endpoint answers BLOCKED (403) for these.
 */
export const POLICY_CONSTRAINTS: ReadonlySet<string> = new Set([
  'math_verifier.disallowed_construct',
  'math_verifier.compute_cost_exceeded',
  'math_verifier.input_too_long',
  'math_verifier.depth_exceeded',
]);
