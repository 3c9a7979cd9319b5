/**
 * Reasoning-trace structure checks. Pure functions over text: keyword markers for IRAC and
 * normalised phrase occurrence for milestones. Both are heuristics (decisions §1): they say whether
 * the words are there, never whether the reasoning is sound, so their verdict is advisory.
 */

export const ENGINE_NAME = 'process';
export const ENGINE_VERSION = '1.0.0';

export type IracStep = 'issue' | 'rule' | 'application' | 'conclusion';
export const IRAC_STEPS: readonly IracStep[] = ['issue', 'rule', 'application', 'conclusion'];

/**
 * Markers per step, matched case-insensitively on word boundaries. An explicit label ("Issue:",
 * "Rule -") or one of the phrases lawyers use to open that step counts. Kept narrow on purpose:
 * a broad list ("law", "so") would mark almost any paragraph as complete.
 */
const MARKERS: Record<IracStep, RegExp> = {
  issue: /\b(?:issues?\s*[:\-–]|the\s+(?:legal\s+)?issue\s+is\b|question\s+presented\b|the\s+question\s+is\s+whether\b|at\s+issue\s+is\b)/i,
  rule: /§\s*\d|\b(?:rules?\s*[:\-–]|the\s+(?:governing\s+|applicable\s+|relevant\s+)?rule\s+is\b|under\s+(?:the\s+)?(?:rule|statute|section|article|law|doctrine|act|lease|contract)\b|the\s+(?:statute|law|doctrine)\s+(?:provides|states|requires)\b|provides\s+that\b)/i,
  application: /\b(?:application\s*[:\-–]|analysis\s*[:\-–]|applying\s+(?:this|the|that)\b|in\s+(?:this|the\s+present|the\s+instant)\s+case\b|here\s*,|on\s+these\s+facts\b|applied\s+to\s+(?:these|the)\s+facts\b)/i,
  conclusion: /\b(?:conclusions?\s*[:\-–]|in\s+conclusion\b|therefore\b|accordingly\b|thus\s*,|we\s+conclude\b|it\s+follows\s+that\b|consequently\b)/i,
};

export interface IracResult {
  verified: boolean;
  /** found steps / 4 */
  score: number;
  missing_steps: IracStep[];
  mechanism: string;
  found: Partial<Record<IracStep, number>>;
  in_order: boolean;
}

export const IRAC_MECHANISM = 'keyword_markers';

export function checkIrac(trace: string): IracResult {
  const found: Partial<Record<IracStep, number>> = {};
  const missing: IracStep[] = [];
  for (const step of IRAC_STEPS) {
    const m = MARKERS[step].exec(trace);
    if (m) found[step] = m.index;
    else missing.push(step);
  }
  const positions = IRAC_STEPS.filter((s) => found[s] !== undefined).map((s) => found[s] as number);
  const inOrder = positions.every((p, i) => i === 0 || positions[i - 1] <= p);
  return {
    verified: missing.length === 0,
    score: (IRAC_STEPS.length - missing.length) / IRAC_STEPS.length,
    missing_steps: missing,
    mechanism: IRAC_MECHANISM,
    found,
    in_order: inOrder,
  };
}

/**
 * Normal form for phrase matching: NFKC, lower case, every run of non letters/digits one space.
 * Framed with spaces so a match is whole words: "tax" does not match inside "syntax".
 */
export function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

export interface MilestoneResult {
  verified: boolean;
  process_rate: number;
  /** found / total as an exact fraction, e.g. "2/3" */
  process_rate_exact: string;
  missed_milestones: string[];
  found_milestones: string[];
  /** the found milestones' first occurrences follow the order they were given in */
  in_order: boolean;
}

/** Each milestone is looked for anywhere in the trace; order is reported, never required. */
export function checkMilestones(trace: string, milestones: readonly string[]): MilestoneResult {
  const hay = ` ${normalise(trace)} `;
  const missed: string[] = [];
  const foundList: string[] = [];
  const positions: number[] = [];
  for (const m of milestones) {
    const needle = normalise(m);
    const at = needle ? hay.indexOf(` ${needle} `) : -1;
    if (at === -1) missed.push(m);
    else {
      foundList.push(m);
      positions.push(at);
    }
  }
  const found = milestones.length - missed.length;
  return {
    verified: missed.length === 0,
    process_rate: found / milestones.length,
    process_rate_exact: `${found}/${milestones.length}`,
    missed_milestones: missed,
    found_milestones: foundList,
    in_order: positions.every((p, i) => i === 0 || positions[i - 1] <= p),
  };
}

/** The pool's entry point (app.engine): milestone matching of a long trace off the event loop. */
export function milestonesTask(input: { trace: string; milestones: string[] }): MilestoneResult {
  return checkMilestones(input.trace, input.milestones);
}
