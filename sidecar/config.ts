import { configSchema, envVars, loadConfig, type Config, type EnvVar, type LoadOptions } from '../core/config.js';
import { builtinSettings } from './builtin.js';

/**
 * The configuration as the sidecar reads it: the kernel's settings and every built-in plugin's
 * (enabled or not, so that one config file serves whichever plugins are on). The commands, the
 * test harness and the benchmarks load it here; the kernel itself knows no plugin by name.
 */
export function loadServiceConfig(opts: Omit<LoadOptions, 'settings'> = {}): Config {
  return loadConfig({ ...opts, settings: builtinSettings });
}

/** every SVC_* variable the sidecar reads (the README table, the Helm chart and k8s checks) */
export function serviceEnvVars(): EnvVar[] {
  return envVars(builtinSettings);
}

/** config/schema.json: the whole schema, for editors and operators; generated, never edited */
export const CONFIG_SCHEMA_ID = 'https://proofgate.dev/schemas/config.json';

export function configSchemaDocument(): Record<string, unknown> {
  const { description: _kernelNote, ...whole } = configSchema(builtinSettings) as Record<string, unknown>;
  return {
    $id: CONFIG_SCHEMA_ID,
    title: 'proofgate configuration',
    description: 'GENERATED from config/kernel.schema.json and each built-in plugin\'s settings (plugins/<name>/settings.ts) by `node dist/sidecar/config-schema-main.js`; do not edit. Names, defaults and environment variables (x-env).',
    ...whole,
  };
}

/** the text of config/schema.json */
export function configSchemaText(): string {
  return JSON.stringify(configSchemaDocument(), null, 2) + '\n';
}
