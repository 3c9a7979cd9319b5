/**
 * The fact engine's worker side: judging grows with the claim and the context (tokenising up to
 * 200,000 characters, indexing every sentence), so it runs in the pool, never on the event loop.
 */
import { judge, type FactOutcome } from './rules.js';

export function judgeFact(input: { claim: string; context: string }): FactOutcome {
  return judge(input.claim, input.context);
}
