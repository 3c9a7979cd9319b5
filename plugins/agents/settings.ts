import { defineSettings } from '../../core/plugin/settings.js';

/** `plugin_config.agents` (config file only): how long the activity log keeps tool decisions. */
export interface AgentsSettings {
  /** null (default): keep everything */
  activity_retention_days?: number | null;
}

export const agentsSettings = defineSettings<AgentsSettings>('plugin_config.agents', {
  type: 'object',
  additionalProperties: false,
  properties: {
    activity_retention_days: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 36500,
      description: 'Days an agent activity record is kept (docs/agents.md); absent or null: kept for good.',
    },
  },
});
