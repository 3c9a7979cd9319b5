import { defineProblem } from '../../../core/errors.js';

export const C = {
  deadline: 'consensus.deadline_exceeded',
  engineError: 'consensus.engine_error',
  belowThreshold: 'consensus.below_threshold',
  insufficientEngines: 'consensus.insufficient_engines',
  engineUnavailable: 'consensus.engine_unavailable',
  rationalSyntax: 'rational_verifier.syntax_error',
  rationalDivZero: 'rational_verifier.division_by_zero',
  rationalCost: 'rational_verifier.compute_cost_exceeded',
  rationalIrrational: 'rational_verifier.non_integer_exponent',
  /** the untrusted translation step of a question in words */
  translation: 'consensus.llm_translation',
  translationFailed: 'consensus.translation_failed',
} as const;

export const ConsensusProblems = {
  belowThreshold: defineProblem('consensus_below_threshold', 422, 'Consensus confidence below min_confidence'),
  insufficientEngines: defineProblem('consensus_insufficient_engines', 422, 'Not enough engines can answer this query for the requested mode'),
  engineUnavailable: defineProblem('consensus_engine_unavailable', 503, 'A required verification engine is unavailable'),
  unknownProvider: defineProblem('unknown_provider', 400, 'Unknown or unconfigured language-model provider'),
  translationFailed: defineProblem('consensus_translation_failed', 503, 'The question could not be translated'),
} as const;
