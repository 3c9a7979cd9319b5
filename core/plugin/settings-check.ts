import { didYouMean } from '../cli.js';
import { ConfigError, configSchema, type Config } from '../config.js';
import { SettingsError, valueAt, type OwnedSettings } from './settings.js';
import type { Plugin, PluginEntry } from '../types.js';
import type { Validator } from '../json/validate.js';

/**
 * Start-up check of the plugins' settings, once the plugins are loaded and before any registers:
 * no two plugins (nor a plugin and the kernel) declare one place; every `plugin_config` key is
 * some plugin's (a disabled built-in's included, so that a config file works whichever plugins are
 * on); each loaded plugin's value passes its fragment and its own check. The configuration was
 * already validated against the fragments known before loading (the built-ins'); this adds the
 * plugins loaded from a path and configs built without loadConfig (tests, embedding). Defaults of
 * a section that was never filled are filled here. Throws a ConfigError (exit 78) listing everything.
 */
export function checkPluginSettings(config: Config, entries: readonly PluginEntry[], loaded: readonly Plugin[], validator: Validator): void {
  const problems: string[] = [];
  const builtin = new Set(entries.map((e) => e.name));
  const byName = new Map<string, OwnedSettings>();
  for (const e of entries) if (e.settings) byName.set(e.name, { plugin: e.name, settings: e.settings });
  for (const p of loaded) if (p.settings) byName.set(p.name, { plugin: p.name, settings: p.settings });
  const owned = [...byName.values()];
  try {
    configSchema(owned);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    throw new ConfigError([err.message]);
  }
  for (const p of loaded) {
    // a plugin read from a path is loaded after the file was checked: only plugin_config had room for it
    if (p.settings && !builtin.has(p.name) && !p.settings.at.startsWith('plugin_config.')) {
      problems.push(`plugin ${p.name}: settings of a plugin loaded from a path live under plugin_config.<name>, not at ${p.settings.at}`);
    }
  }
  const declared = new Set(owned.map((o) => o.settings.at).filter((at) => at.startsWith('plugin_config.')).map((at) => at.slice('plugin_config.'.length)));
  for (const key of Object.keys(config.plugin_config ?? {})) {
    if (declared.has(key)) continue;
    const near = didYouMean(key, [...declared]);
    problems.push(`plugin_config.${key}: no enabled or built-in plugin declares these settings${near ? ` (did you mean plugin_config.${near}?)` : ''}`);
  }
  if (problems.length) throw new ConfigError(problems);
  for (const p of loaded) {
    if (!p.settings) continue;
    const { at, schema } = p.settings;
    const value = valueAt(config, at) ?? fill(config, at);
    try {
      validator.assertSettings(at, schema, value);
    } catch (err) {
      problems.push((err as Error).message);
      continue;
    }
    problems.push(...(p.settings.check?.(value) ?? []));
  }
  if (problems.length) throw new ConfigError(problems);
}

/** an empty object at `at`, for the validator to fill with the fragment's defaults */
function fill(config: Config, at: string): Record<string, unknown> {
  let cur = config as unknown as Record<string, unknown>;
  for (const k of at.split('.')) {
    if (!cur[k] || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  return cur;
}
