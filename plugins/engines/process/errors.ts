/** Constraint ids of the process engine (advisory checks name these). */
export const C = {
  irac: 'process_verifier.irac_markers',
  milestones: 'process_verifier.milestone_phrases',
  invalidRequest: 'process_verifier.invalid_request',
} as const;
