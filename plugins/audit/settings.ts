import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The audit plugin's settings (`audit.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface AuditSettings {
  checkpoint_interval_seconds: number;
  retention_days: number | null;
  export_dir: string | null;
  prune_anchor_keys: string[];
}

export const auditSettings = defineSettings<AuditSettings>('audit', {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    checkpoint_interval_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 60,
      default: 60,
      'x-env': 'SVC_AUDIT_CHECKPOINT_INTERVAL_SECONDS',
      description: "How often each organisation's chain head gets a signed checkpoint (also written at shutdown).",
    },
    retention_days: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 36500,
      default: null,
      'x-env': 'SVC_AUDIT_RETENTION_DAYS',
      description: 'Entries older than this are exported, checkpointed and pruned (null: keep everything).',
    },
    export_dir: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_AUDIT_EXPORT_DIR',
      description: 'Where pruned entries are exported as JSONL before deletion; default <data_dir>/audit-export.',
    },
    prune_anchor_keys: {
      type: 'array',
      items: {
        type: 'string',
        pattern: '^[A-Za-z0-9_-]{43}$',
      },
      maxItems: 32,
      default: [],
      'x-env': 'SVC_AUDIT_PRUNE_ANCHOR_KEYS',
      description:
        'With the persistent attestation key: RFC 7638 thumbprints of earlier keys whose prune checkpoints retention may continue a chain from (the current key is always accepted).',
    },
  },
});
