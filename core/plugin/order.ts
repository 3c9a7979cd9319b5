import type { Plugin, PluginManifest, ServiceNeed } from '../types.js';
import { PluginLoadError } from './load.js';

/**
 * Registration order from the plugins' manifests: a plugin comes after the enabled providers of its
 * `needs` and `optional` keys, and otherwise keeps its place in the list (hooks run in
 * registration order, so an unconstrained plugin must not move). `kernelKeys` are provided by the
 * kernel itself and need no plugin. Throws naming a missing provider or the plugins of a circle.
 */
export function orderPlugins(list: readonly Plugin[], kernelKeys: ReadonlySet<string> = new Set()): Plugin[] {
  const provider = new Map<string, Plugin>();
  for (const p of list) {
    for (const key of p.provides ?? []) {
      const other = provider.get(key);
      if (other) throw new PluginLoadError(`plugins ${other.name} and ${p.name} both provide the service ${key}`);
      provider.set(key, p);
    }
  }
  const after = new Map<Plugin, Set<Plugin>>();
  for (const p of list) {
    const deps = new Set<Plugin>();
    for (const key of p.needs ?? []) {
      if (kernelKeys.has(key)) continue;
      const by = provider.get(key);
      if (!by) throw new PluginLoadError(`plugin ${p.name} needs the service ${key}, which no enabled plugin provides (is its plugin disabled?)`);
      if (by !== p) deps.add(by);
    }
    for (const key of p.optional ?? []) {
      const by = provider.get(key);
      if (by && by !== p) deps.add(by);
    }
    after.set(p, deps);
  }
  const placed = new Set<Plugin>();
  const out: Plugin[] = [];
  while (out.length < list.length) {
    // the first plugin in list order whose providers are all placed: stable where needs allow
    const next = list.find((p) => !placed.has(p) && [...after.get(p)!].every((d) => placed.has(d)));
    if (!next) throw new PluginLoadError(`plugins need each other's services in a circle: ${describeCircle(list.filter((p) => !placed.has(p)), after)}`);
    placed.add(next);
    out.push(next);
  }
  return out;
}

/** One circle among the unplaced plugins, as `a → b → a` (each needs a service of the next). */
function describeCircle(rest: Plugin[], after: Map<Plugin, Set<Plugin>>): string {
  const path: Plugin[] = [];
  let at = rest[0]!;
  // every unplaced plugin waits on another unplaced one, so walking the waits must come back round
  while (!path.includes(at)) {
    path.push(at);
    at = [...after.get(at)!].find((d) => rest.includes(d))!;
  }
  return [...path.slice(path.indexOf(at)), at].map((p) => p.name).join(' → ');
}

/** Whether a manifest lets its plugin look up `key` (its own keys, needs, optional and late ones). */
export function declares(m: PluginManifest, key: string): boolean {
  const all: readonly ServiceNeed[] = [...(m.provides ?? []), ...(m.needs ?? []), ...(m.optional ?? []), ...(m.late ?? [])];
  return all.some((k) => k === key || (k.endsWith('.*') && key.startsWith(k.slice(0, -1))));
}
