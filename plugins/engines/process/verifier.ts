import type { Verifier } from '../../../core/types.js';
import { blocked, unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import type { ProcessRequest as GeneratedProcessRequest } from '../../../schemas/gen/index.js';
import { checkIrac, checkMilestones, ENGINE_NAME, ENGINE_VERSION, type MilestoneResult } from './engine.js';
import { C } from './errors.js';

/** POST /verify/process's body: schemas/process/request.json, generated (schemas/gen/process.gen.ts) */
export type ProcessRequest = GeneratedProcessRequest;

export interface ProcessOutcome {
  /** the endpoint's own top-level fields (spec: verified, score, … / process_rate, …) */
  fields: Record<string, unknown>;
  diagnostic: DiagnosticResult;
}

/**
 * Keyword and phrase matching is a heuristic (decisions §1): the result is UNVERIFIABLE whatever it
 * finds, and the match is reported as an advisory check. `verified` keeps its spec meaning: every
 * expected step or milestone was found.
 */
/**
 * Milestone matching, wherever the plugin runs it: NFKC grows a trace up to 18-fold (U+FDFA), so
 * 200,000 characters took 0.47 s of the event loop, and a batch of such traces seconds. Short
 * inputs stay inline, where a worker hop would cost more than the scan.
 */
export type MilestoneRunner = (trace: string, milestones: string[], signal?: AbortSignal) => Promise<MilestoneResult>;
export const INLINE_CHARS = 4096;
export const inlineMilestones: MilestoneRunner = async (trace, milestones) => checkMilestones(trace, milestones);

export async function evaluateProcess(req: ProcessRequest, runMilestones: MilestoneRunner = inlineMilestones, signal?: AbortSignal): Promise<ProcessOutcome> {
  const engine = { engine: ENGINE_NAME, engine_version: ENGINE_VERSION };
  if ((req.mode ?? 'irac') === 'irac') {
    const r = checkIrac(req.trace);
    const fields = { verified: r.verified, score: r.score, missing_steps: r.missing_steps, mechanism: r.mechanism };
    const msg = r.verified
      ? 'All four IRAC markers were found (keyword heuristic, not a proof of sound reasoning).'
      : `IRAC markers missing: ${r.missing_steps.join(', ')} (keyword heuristic).`;
    const diagnostic = unverifiable(msg, {
      ...engine,
      advisory_checks: [
        { name: 'irac_structure', advisory_only: true, constraint_id: C.irac, details: { ...fields, found_at: r.found, in_order: r.in_order } },
      ],
    });
    return { fields, diagnostic };
  }
  const r = await runMilestones(req.trace, req.milestones ?? [], signal);
  const fields = { verified: r.verified, process_rate: r.process_rate, missed_milestones: r.missed_milestones };
  const msg = r.verified
    ? `All ${req.milestones?.length} milestones occur in the trace (phrase heuristic).`
    : `${r.missed_milestones.length} of ${req.milestones?.length} milestones do not occur in the trace (phrase heuristic).`;
  const diagnostic = unverifiable(msg, {
    ...engine,
    advisory_checks: [
      {
        name: 'milestones',
        advisory_only: true,
        constraint_id: C.milestones,
        details: { ...fields, process_rate_exact: r.process_rate_exact, found_milestones: r.found_milestones, in_order: r.in_order },
      },
    ],
  });
  return { fields, diagnostic };
}

export const LIMITS = { traceChars: 200_000, milestones: 100, milestoneChars: 500 } as const;

/** The route schema's rules as a function, for the service (an unusable input is a BLOCKED verdict, not a 400). */
export function requestProblem(raw: Record<string, unknown>): string | null {
  const { trace, mode, milestones } = raw;
  if (typeof trace !== 'string' || !trace || trace.length > LIMITS.traceChars) return `trace must be a non-empty string of at most ${LIMITS.traceChars} characters`;
  if (mode !== undefined && mode !== 'irac' && mode !== 'milestones') return "mode must be 'irac' or 'milestones'";
  if (mode === 'milestones') {
    if (!Array.isArray(milestones) || milestones.length === 0 || milestones.length > LIMITS.milestones) return 'milestones mode needs 1 to 100 milestones';
    if (!milestones.every((m) => typeof m === 'string' && /[\p{L}\p{N}]/u.test(m) && m.length <= LIMITS.milestoneChars)) {
      return 'every milestone must be a string with at least one letter or digit';
    }
  }
  return null;
}

/** `verifier.process` for composite routes: an unusable input is a BLOCKED verdict for that item, not a 400. */
export function processVerifier(runMilestones: MilestoneRunner = inlineMilestones): Verifier {
  return {
    async verify(input, opts) {
      const problem = requestProblem(input);
      if (problem) return blocked(`Invalid process request: ${problem}.`, C.invalidRequest);
      return (await evaluateProcess(input as unknown as ProcessRequest, runMilestones, opts?.signal)).diagnostic;
    },
  };
}
