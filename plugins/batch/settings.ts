import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The batch plugin's settings (`batch.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface BatchSettings {
  retention_seconds: number;
  max_stored_bytes: number;
}

export const batchSettings = defineSettings<BatchSettings>('batch', {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    retention_seconds: {
      type: 'integer',
      minimum: 60,
      maximum: 31536000,
      default: 86400,
      'x-env': 'SVC_BATCH_RETENTION_SECONDS',
      description: 'How long a batch job stays readable at GET /verify/batch/{job_id}.',
    },
    max_stored_bytes: {
      type: 'integer',
      minimum: 1024,
      maximum: 67108864,
      default: 1048576,
      'x-env': 'SVC_BATCH_MAX_STORED_BYTES',
      description: 'Cap of one stored batch job; results past it are dropped from the stored copy (results_truncated).',
    },
  },
});
