import { defineSettings } from '../../../core/plugin/settings.js';

/** spec: one 30-second aggregate deadline; plugin_config.consensus.deadline_ms may only lower it */
export const MAX_DEADLINE_MS = 30_000;

/** `plugin_config.consensus` (config file only) */
export interface ConsensusSettings {
  deadline_ms?: number;
}

export const consensusSettings = defineSettings<ConsensusSettings>('plugin_config.consensus', {
  type: 'object',
  additionalProperties: false,
  properties: {
    deadline_ms: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_DEADLINE_MS,
      description: 'Aggregate deadline of one consensus request (default and maximum 30000 ms).',
    },
  },
});
