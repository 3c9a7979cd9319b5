import { defineProblem } from '../../core/errors.js';

export const OpsProblems = {
  notOperator: defineProblem('not_metrics_operator', 403, 'Forbidden'),
  notPlatformOperator: defineProblem('not_operator', 403, 'Forbidden'),
  orgNotFound: defineProblem('organization_not_found', 404, 'Organization not found'),
  unknownValue: defineProblem('unknown_value', 400, 'Unknown value'),
  otherOrg: defineProblem('organization_forbidden', 403, 'Forbidden'),
  notFound: defineProblem('audit_entry_not_found', 404, 'Audit entry not found'),
  security: defineProblem('audit_integrity_error', 500, 'Audit entry failed its security check'),
  unavailable: defineProblem('ops_unavailable', 503, 'Service Unavailable'),
} as const;
