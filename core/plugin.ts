import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from './types.js';

export class PluginLoadError extends Error {}

function asPlugin(value: unknown, origin: string): Plugin {
  const v = value as Partial<Plugin> | undefined;
  if (!v || typeof v.name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(v.name) || typeof v.register !== 'function') {
    throw new PluginLoadError(`${origin} does not export a plugin { name, register(app) } (default export or \`plugin\`)`);
  }
  return v as Plugin;
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

/** Built-ins minus the disabled ones, then operator plugins; names must be unique. */
export async function resolvePlugins(
  builtins: Plugin[],
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
  const list = builtins.filter((p) => !disabled.includes(p.name)).map((p) => asPlugin(p, `built-in ${p.name}`));
  for (const path of extra) list.push(await importPlugin(path));
  const seen = new Set<string>();
  for (const p of list) {
    if (seen.has(p.name)) throw new PluginLoadError(`two plugins are named ${p.name}`);
    seen.add(p.name);
  }
  return list;
}
