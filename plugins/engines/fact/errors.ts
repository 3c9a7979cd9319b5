import { defineProblem } from '../../../core/errors.js';

export const FACT = {
  llmOpinion: 'fact_verifier.llm_opinion',
  contradictoryContext: 'fact_verifier.contradictory_context',
} as const;

export const FactProblems = {
  unknownProvider: defineProblem('unknown_provider', 400, 'Unknown language-model provider'),
  providerNotConfigured: defineProblem('provider_not_configured', 400, 'Language-model provider not configured'),
} as const;
