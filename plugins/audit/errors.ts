import { defineProblem } from '../../core/errors.js';

export const AuditProblems = {
  unavailable: defineProblem('audit_unavailable', 503, 'Audit log unavailable'),
  notFound: defineProblem('audit_entry_not_found', 404, 'Audit entry not found'),
  /** a stored entry that cannot be read as an audit payload: refuse to vouch for it */
  security: defineProblem('audit_integrity_error', 500, 'Audit entry failed its security check'),
  badCursor: defineProblem('invalid_cursor', 400, 'Invalid cursor'),
} as const;
