import { solve, warmup } from '../../plugins/engines/logic/engine.js';
import type { SolveOutcome } from '../../plugins/engines/logic/outcome.js';

/**
 * Bench adapter for logic.jsonl: the timed op is the worker function itself, in-process on one
 * thread (parse + z3 with the warm context), i.e. what one z3 worker does per query.
 */
export const corpus = 'logic.jsonl';

export async function setup(): Promise<void> {
  await warmup();
}

export async function op(line: { query: string }): Promise<unknown> {
  return solve({ query: line.query });
}

/**
 * Corpus scoring: a decided line (SAT/UNSAT) is correct when it matches `expected.sat`, wrong
 * otherwise; on an `invalid` line any refusal (ERROR or BLOCKED) is correct and a verdict is wrong;
 * an ERROR on a valid line (timeout, solver unknown) is `error`.
 */
export function judge(line: { expected: { sat?: boolean; invalid?: boolean } }, output: unknown): 'correct' | 'wrong' | 'error' {
  const o = output as SolveOutcome | undefined;
  const decided = o?.status === 'SAT' || o?.status === 'UNSAT';
  if (line.expected.invalid) return decided ? 'wrong' : o?.status === 'ERROR' || o?.status === 'BLOCKED' ? 'correct' : 'error';
  if (!decided) return 'error';
  return (o.status === 'SAT') === line.expected.sat ? 'correct' : 'wrong';
}
