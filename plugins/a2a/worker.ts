/**
 * The A2A gateway's worker module (run by the kernel's pool, plain JSON in and out): the parts of
 * its guards whose cost grows with the payload and that no other plugin offers. Large invoices are
 * summed here, and code_guard's text heuristics scan large code here, so neither blocks the event
 * loop. Parsing code is not done here: that is the code plugin's `code.analyzer`, in its own pool.
 */
import { scanHeuristics, type HeuristicFinding } from './guards/code-heuristics.js';
import { checkFinanceTask, type FinanceTask } from './guards/finance.js';
import type { GuardOutcome } from './guards/types.js';
import { parseStrictJson, type StrictJson } from '../../core/json/strict.js';

export function checkFinance(task: FinanceTask): GuardOutcome {
  return checkFinanceTask(task);
}

export function scanCodeText(task: { code: string }): HeuristicFinding[] {
  return scanHeuristics(task.code);
}

/** a peer's answer (or one SSE event of it) above the proxy's inline size, read strictly (proxy/answer.ts) */
export function parseAnswer(task: { text: string }): StrictJson {
  return parseStrictJson(task.text);
}
