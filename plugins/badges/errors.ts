import { defineProblem } from '../../core/errors.js';

export const BadgeProblems = {
  invalid: defineProblem('invalid_badge_request', 400, 'Invalid badge request'),
} as const;
