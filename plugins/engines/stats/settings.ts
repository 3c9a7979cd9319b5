import { defineSettings } from '../../../core/plugin/settings.js';

/** header columns accepted by default; `plugin_config.stats.max_columns` sets another cap (issue 12, item 8) */
export const DEFAULT_MAX_COLUMNS = 1000;

/** `plugin_config.stats` (config file only): the sandbox child's caps; absent keys take the defaults in docs/engines/stats.md */
export interface StatsSettings {
  timeout_ms?: number;
  heap_mb?: number;
  concurrency?: number;
  max_columns?: number;
}

export const statsSettings = defineSettings<StatsSettings>('plugin_config.stats', {
  type: 'object',
  additionalProperties: false,
  properties: {
    timeout_ms: { type: 'integer', minimum: 1, maximum: 60_000, description: 'Deadline of one sandboxed computation (default 10000).' },
    heap_mb: { type: 'integer', minimum: 1, maximum: 2048, description: 'Heap of the sandbox child (default 128).' },
    concurrency: { type: 'integer', minimum: 1, maximum: 16, description: 'Sandbox children at once (default 2).' },
    max_columns: { type: 'integer', minimum: 1, maximum: 100_000, description: `CSV header columns accepted (default ${DEFAULT_MAX_COLUMNS}); more is 413 stats_column_cap_exceeded.` },
  },
});
