/**
 * The MCP proxy's worker module (run by the kernel's pool, plain JSON in and out): the checks whose
 * cost grows with what a server lists or an agent sends. A large tools/list page is hashed and
 * screened here, a large tools/call's arguments evaluated here, and a large answer parsed, reviewed
 * and re-serialised here (relay-review.ts), so none of them holds the event loop.
 */
import { evaluateAdmitted, type ToolEvaluation } from '../agents/index.js';
import { definitionHash, screenDefinition, type Finding, type ToolDefinition } from './definitions.js';
import { reviewText, type Reviewed, type ReviewTask } from './relay-review.js';

/** `known`: hashes screened before (last seen): hashed, not screened again */
export function checkDefinitions(task: { tools: ToolDefinition[]; known?: string[] }): Array<{ hash: string | null; findings?: Finding[] }> {
  const known = new Set(task.known ?? []);
  return task.tools.map((t) => {
    let hash: string | null;
    try {
      hash = definitionHash(t);
    } catch {
      // no RFC 8785 form (a lone surrogate): the caller refuses the listing
      return { hash: null, findings: [] };
    }
    return known.has(hash) ? { hash } : { hash, findings: screenDefinition(t) };
  });
}

export function evaluateCall(task: { tool: string; args: Record<string, unknown>; admitted: { sandbox: boolean; why: string } }): ToolEvaluation {
  return evaluateAdmitted(task.tool, task.args, task.admitted);
}

export function reviewAnswer(task: ReviewTask): Reviewed {
  return reviewText(task);
}
