import { defineProblem } from '../../core/errors.js';

export const OpsProblems = {
  notOperator: defineProblem('not_metrics_operator', 403, 'Forbidden'),
  otherOrg: defineProblem('organization_forbidden', 403, 'Forbidden'),
  notFound: defineProblem('audit_entry_not_found', 404, 'Audit entry not found'),
  security: defineProblem('audit_integrity_error', 500, 'Audit entry failed its security check'),
  unavailable: defineProblem('ops_unavailable', 503, 'Service Unavailable'),
} as const;
