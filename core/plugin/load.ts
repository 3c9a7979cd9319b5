import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CollectionCodecs } from '../store/store.js';
import type { Plugin, PluginEntry } from '../types.js';

export class PluginLoadError extends Error {}

function asPlugin(value: unknown, origin: string): Plugin {
  const v = value as Partial<Plugin> | undefined;
  if (!v || typeof v.name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(v.name) || typeof v.register !== 'function') {
    throw new PluginLoadError(`${origin} does not export a plugin { name, register(app) } (default export or \`plugin\`)`);
  }
  checkManifest(v as Plugin, origin);
  return v as Plugin;
}

const KEY = /^[a-z][a-z0-9_.-]{0,127}$/i;
const FAMILY = /^[a-z][a-z0-9_.-]{0,125}\.\*$/i;

/**
 * A manifest from a plugin in plain JavaScript is checked as the type would: a string where a list
 * belongs would be searched character by character, a family (`x.*`) only widens a `late` look-up.
 */
function checkManifest(p: Plugin, origin: string): void {
  for (const field of ['provides', 'needs', 'optional', 'late'] as const) {
    const keys: unknown = p[field];
    if (keys === undefined) continue;
    const ok = Array.isArray(keys) && keys.length <= 256 && keys.every((k) => typeof k === 'string' && (KEY.test(k) || (field === 'late' && FAMILY.test(k))));
    if (!ok) throw new PluginLoadError(`${origin}: manifest field ${field} must be a list of service keys${field === 'late' ? ' (or families such as verifier.*)' : ''}`);
  }
  const cols: unknown = p.collections;
  if (cols !== undefined) {
    const ok = !!cols && typeof cols === 'object' && !Array.isArray(cols) && Object.entries(cols).every(([name, c]) => COLLECTION.test(name) && typeof (c as { encode?: unknown })?.encode === 'function' && typeof (c as { decode?: unknown }).decode === 'function');
    if (!ok) throw new PluginLoadError(`${origin}: manifest field collections must map collection names to codecs { encode, decode }`);
  }
}

/** the names a store accepts (core/store/lmdb.ts, core/store/pg.ts) */
const COLLECTION = /^[a-z0-9_.-]{1,64}$/;

/**
 * Every collection codec the plugins declare, as one table for the store. A collection has one
 * owner: two plugins declaring it would lay its values out two ways, so that stops start-up.
 */
export function pluginCollections(plugins: readonly Plugin[]): CollectionCodecs {
  const out: Record<string, CollectionCodecs[string]> = {};
  const owner = new Map<string, string>();
  for (const p of plugins) {
    for (const [name, codec] of Object.entries(p.collections ?? {})) {
      const other = owner.get(name);
      if (other !== undefined) throw new PluginLoadError(`plugins ${other} and ${p.name} both declare the collection ${name}`);
      owner.set(name, p.name);
      out[name] = codec;
    }
  }
  return out;
}

/** Imports an operator plugin from a path given in config: its default export, or a named `plugin` export. */
export async function importPlugin(path: string, cwd = process.cwd()): Promise<Plugin> {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    throw new PluginLoadError(`cannot load plugin ${path}: ${(err as Error).message}`);
  }
  return asPlugin(mod.default ?? mod.plugin, path);
}

const sameNames = (a: readonly string[] | undefined, b: readonly string[] | undefined) => (a ?? []).join('\n') === (b ?? []).join('\n');

/** The plugin an entry names, imported now if it is a reference (only enabled entries get here). */
async function loadEntry(entry: PluginEntry): Promise<Plugin> {
  if (!('load' in entry) || typeof entry.load !== 'function') return asPlugin(entry, `built-in ${entry.name}`);
  let loaded: Plugin;
  try {
    loaded = asPlugin(await entry.load(), `built-in ${entry.name}`);
  } catch (err) {
    if (err instanceof PluginLoadError) throw err;
    throw new PluginLoadError(`cannot load built-in plugin ${entry.name}: ${(err as Error).message}`);
  }
  // the list is what plugins.disabled is checked against: it must not drift from the plugin itself
  if (loaded.name !== entry.name || !sameNames(loaded.aliases, entry.aliases)) {
    throw new PluginLoadError(`built-in entry ${entry.name} loaded plugin ${loaded.name} (aliases ${JSON.stringify(loaded.aliases ?? [])}): the list and the plugin disagree`);
  }
  // the entry's declaration is what the configuration was checked against before loading
  if (loaded.settings !== entry.settings) throw new PluginLoadError(`built-in entry ${entry.name} and its plugin declare different settings: the list and the plugin disagree`);
  return loaded;
}

/**
 * Built-ins minus the disabled ones, then operator plugins; names must be unique. A disabled
 * built-in given as a reference is never imported.
 */
export async function resolvePlugins(
  builtins: PluginEntry[],
  disabledNames: string[],
  extra: string[],
  warn: (msg: string) => void = () => undefined,
): Promise<Plugin[]> {
  const known = new Set(builtins.map((p) => p.name));
  const renamed = new Map(builtins.flatMap((p) => (p.aliases ?? []).map((a) => [a, p.name] as const)));
  const disabled = disabledNames.map((n) => {
    const now = known.has(n) ? undefined : renamed.get(n);
    if (now === undefined) return n;
    warn(`plugins.disabled: "${n}" is now called "${now}"; the old name will stop working in the next release`);
    return now;
  });
  const unknown = disabled.filter((n) => !known.has(n));
  if (unknown.length) throw new PluginLoadError(`cannot disable unknown plugin(s): ${unknown.join(', ')}`);
  // imported one after the other: registration order is list order, and a failure names its entry
  const list: Plugin[] = [];
  for (const entry of builtins) if (!disabled.includes(entry.name)) list.push(await loadEntry(entry));
  for (const path of extra) list.push(await importPlugin(path));
  const seen = new Set<string>();
  for (const p of list) {
    if (seen.has(p.name)) throw new PluginLoadError(`two plugins are named ${p.name}`);
    seen.add(p.name);
  }
  return list;
}
