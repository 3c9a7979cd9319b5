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
} as const;

export const ConsensusProblems = {
  belowThreshold: defineProblem('consensus_below_threshold', 422, 'Consensus confidence below min_confidence'),
  insufficientEngines: defineProblem('consensus_insufficient_engines', 422, 'Not enough engines can answer this query for the requested mode'),
  engineUnavailable: defineProblem('consensus_engine_unavailable', 503, 'A required verification engine is unavailable'),
} as const;
