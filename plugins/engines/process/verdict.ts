import { unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import { checkIrac, checkMilestones, ENGINE_NAME, ENGINE_VERSION } from './engine.js';
import { C } from './errors.js';

export interface ProcessRequest {
  trace: string;
  mode?: 'irac' | 'milestones';
  milestones?: string[];
}

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
export function evaluateProcess(req: ProcessRequest): ProcessOutcome {
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
  const r = checkMilestones(req.trace, req.milestones ?? []);
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
