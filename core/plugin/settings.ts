/**
 * A plugin's settings: where they live in the configuration, their JSON Schema fragment (names,
 * types, defaults, `x-env` environment variables) and their TypeScript type. The plugin declares
 * them in its manifest (`Plugin.settings`); the kernel assembles the configuration schema from its
 * own part and every fragment (config/schema.json is that assembly, generated), and a plugin reads
 * its own settings, typed, with `app.settings(its declaration)`.
 */
export interface Settings<T = unknown> {
  /**
   * where the settings live: a top-level section (`a2a`) or `plugin_config.<name>`; a plugin loaded
   * from a path (plugins.extra) can only use `plugin_config.<name>`, as its fragment is not known
   * before the file is read
   */
  readonly at: string;
  /** JSON Schema of the value at `at`: an object schema, `additionalProperties: false` */
  readonly schema: Readonly<Record<string, unknown>>;
  /**
   * rules across settings that a schema cannot say (a policy that requires a key), as problems
   * naming the setting; run on the validated value, each problem stops start-up
   */
  check?(value: T): string[];
  /** carries T for app.settings(); never set */
  readonly type?: T;
}

/** Declares settings at `at` with their schema fragment; `T` is the type of the validated value. */
export function defineSettings<T>(at: string, schema: Record<string, unknown>, check?: (value: T) => string[]): Settings<T> {
  return check ? { at, schema, check } : { at, schema };
}

const AT = /^(?:plugin_config\.)?[a-z][a-z0-9_-]{0,63}$/;

export class SettingsError extends Error {}

interface Node {
  properties?: Record<string, Node>;
  [k: string]: unknown;
}

/** One settings declaration and the plugin it comes from, for messages. */
export interface OwnedSettings {
  plugin: string;
  settings: Settings<unknown>;
}

/**
 * The kernel's schema with every plugin's fragment in its place. Two plugins at one place, or a
 * plugin at a place the kernel defines, is a collision and throws naming both: the configuration
 * would have two meanings for one key.
 */
export function assembleSchema(kernel: Readonly<Node>, owned: readonly OwnedSettings[]): Node {
  const props: Record<string, Node> = { ...kernel.properties };
  const pluginConfig: Node = { ...props.plugin_config, properties: { ...props.plugin_config?.properties } };
  props.plugin_config = pluginConfig;
  const owner = new Map<string, string>();
  for (const { plugin, settings } of owned) {
    const { at, schema } = settings;
    if (typeof at !== 'string' || !AT.test(at)) throw new SettingsError(`plugin ${plugin}: settings.at must be a section name or plugin_config.<name>, not ${JSON.stringify(at)}`);
    if (!schema || typeof schema !== 'object' || schema.type !== 'object') throw new SettingsError(`plugin ${plugin}: the settings schema at ${at} must be an object schema`);
    const other = owner.get(at);
    if (other !== undefined) throw new SettingsError(`plugins ${other} and ${plugin} both declare the settings ${at}`);
    owner.set(at, plugin);
    if (at.startsWith('plugin_config.')) {
      // no default here: plugin_config holds what the operator wrote, and the kernel fills a loaded
      // plugin's defaults when it checks them (core/plugin/settings-check.ts)
      pluginConfig.properties![at.slice('plugin_config.'.length)] = { ...schema } as Node;
    } else {
      const node = { default: {}, ...schema } as Node;
      if (kernel.properties?.[at]) throw new SettingsError(`plugin ${plugin} declares the settings ${at}, which the kernel defines`);
      props[at] = node;
    }
  }
  return { ...kernel, properties: props };
}

/** the value at a dotted path of the configuration */
export function valueAt(config: unknown, at: string): unknown {
  let cur: unknown = config;
  for (const k of at.split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/** the value of `s` in a loaded configuration (tools and tests; a plugin uses app.settings) */
export function settingsIn<T>(config: object, s: Settings<T>): T {
  return valueAt(config, s.at) as T;
}
