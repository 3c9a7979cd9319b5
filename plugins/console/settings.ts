import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The console plugin's settings (`console.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface ConsoleSettings {
  /** the operator's console at /console/; null: on in server mode, off in sidecar mode */
  enabled: boolean | null;
}

export const consoleSettings = defineSettings<ConsoleSettings>('console', {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    enabled: {
      type: ['boolean', 'null'],
      default: null,
      'x-env': 'SVC_CONSOLE_ENABLED',
      description: "Whether the operator's console is served at /console/ (docs/console.md); default on in server mode, off in sidecar mode.",
    },
  },
});
