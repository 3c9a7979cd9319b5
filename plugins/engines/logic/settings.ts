import { defineSettings } from '../../../core/plugin/settings.js';

/** the solver budget's ceiling (outcome.ts re-exports it for the engine) */
export const MAX_TIMEOUT_MS = 60_000;

/** `plugin_config.logic` (config file only) */
export interface LogicSettings {
  /** per-query solver budget (default 5000) */
  timeout_ms?: number;
}

export const logicSettings = defineSettings<LogicSettings>('plugin_config.logic', {
  type: 'object',
  additionalProperties: false,
  properties: {
    timeout_ms: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_MS, description: `Per-query solver budget (default 5000, at most ${MAX_TIMEOUT_MS}).` },
  },
});
