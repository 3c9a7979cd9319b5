/**
 * The A2A gateway's worker-side functions (run by the kernel's pool, plain JSON in and out).
 * code_guard's two layers run here in one task: the code engine parses (tree-sitter wasm for
 * Python, acorn for JavaScript), then the heuristics scan the text. Large invoices are summed here
 * too, so a 20,000-line invoice never blocks the event loop.
 */
import { analyzeCode, initPython } from '../engines/code/index.js';
import { codeOutcome, type CodeTask } from './guards/code.js';
import { checkFinanceTask, type FinanceTask } from './guards/finance.js';
import type { GuardOutcome } from './guards/types.js';

export async function warmup(): Promise<{ ready: true }> {
  await initPython();
  return { ready: true };
}

export async function inspectCode(task: CodeTask): Promise<GuardOutcome> {
  const analysis = await analyzeCode(task.code, task.language);
  return codeOutcome(analysis, task.code);
}

export function checkFinance(task: FinanceTask): GuardOutcome {
  return checkFinanceTask(task);
}
