import { defineProblem } from '../../core/errors.js';

/** Problems raised by accounts, credentials and rate limits. */
export const AuthProblems = {
  invalidCredentials: defineProblem('invalid_credentials', 401, 'Invalid credentials'),
  invalidApiKey: defineProblem('invalid_api_key', 401, 'Invalid API key'),
  legacyApiKey: defineProblem('legacy_api_key', 401, 'API key must be re-issued'),
  invalidToken: defineProblem('invalid_token', 401, 'Invalid or expired access token'),
  conflict: defineProblem('signup_conflict', 409, 'Conflict'),
  signupClosed: defineProblem('signup_closed', 403, 'Sign-up is closed'),
  forbiddenScope: defineProblem('scope_not_allowed', 403, 'Scope not allowed'),
  insufficientScope: defineProblem('insufficient_scope', 403, 'Forbidden'),
  /** a key bound to an A2A sender id its organisation does not own (issue 38) */
  senderNotOwned: defineProblem('a2a_sender_not_owned', 403, 'A2A sender id not owned'),
  keyNotFound: defineProblem('api_key_not_found', 404, 'API key not found'),
  rateLimited: defineProblem('rate_limited', 429, 'Too Many Requests'),
  planLimitExceeded: defineProblem('plan_limit_exceeded', 413, 'Request larger than the plan allows'),
  limiterUnavailable: defineProblem('rate_limiter_unavailable', 503, 'Rate limiter unavailable'),
  auditUnavailable: defineProblem('audit_unavailable', 503, 'Audit log unavailable'),
} as const;
