import { defineProblem } from '../../core/errors.js';

export const BatchProblems = {
  jobNotFound: defineProblem('batch_job_not_found', 404, 'Batch job not found'),
  otherOrganization: defineProblem('batch_job_forbidden', 403, 'Batch job belongs to another organization'),
} as const;

export const BatchConstraints = {
  engineUnavailable: 'batch.engine_unavailable',
  itemFailed: 'batch.item_failed',
  signingError: 'api.attestation.signing_error',
} as const;
