import { pluginCollections } from '../core/plugin.js';
import type { CollectionCodecs } from '../core/store.js';
import type { Plugin, PluginRef } from '../core/types.js';
import { createProvisioning } from './provision/plugin.js';

/** SVC_BOOTSTRAP_FILE in two steps, settings and objects (docs/ops.md); their manifests place them */
const provisioning = createProvisioning();

type Loaded = { default: Plugin };

/**
 * A built-in named here and imported only when enabled: a disabled engine's modules (mathjs, the
 * z3 and tree-sitter bindings, sql.js and whatever else they import) never load into the process.
 * The kernel checks that name and aliases match the plugin's own when it loads it.
 */
const ref = (name: string, load: () => Promise<Loaded>, aliases?: readonly string[]): PluginRef => ({
  name,
  ...(aliases ? { aliases } : {}),
  load: async () => (await load()).default,
});

/**
 * The composition root: the one place that names the built-in plugins. The kernel registers them
 * in this order except where a plugin's manifest (`needs`, `optional`) puts a provider first.
 */
export const builtinPlugins: Array<Plugin | PluginRef> = [
  provisioning.config,
  ref('health', () => import('../plugins/health/index.js')),
  ref('auth', () => import('../plugins/auth/index.js')),
  ref('agents', () => import('../plugins/agents/index.js')),
  ref('providers', () => import('../plugins/providers/index.js')),
  ref('math', () => import('../plugins/engines/math/index.js'), ['engine-math']),
  ref('natural-language', () => import('../plugins/engines/natural-language/index.js')),
  ref('fact', () => import('../plugins/engines/fact/index.js')),
  ref('logic', () => import('../plugins/engines/logic/index.js')),
  ref('code', () => import('../plugins/engines/code/index.js')),
  ref('sql', () => import('../plugins/engines/sql/index.js')),
  ref('process', () => import('../plugins/engines/process/index.js'), ['engine-process']),
  ref('rag', () => import('../plugins/engines/rag/index.js'), ['engine-rag']),
  ref('consensus', () => import('../plugins/engines/consensus/index.js'), ['engine-consensus']),
  ref('stats', () => import('../plugins/engines/stats/index.js'), ['engine-stats']),
  ref('image', () => import('../plugins/engines/image/index.js'), ['engine-image']),
  ref('batch', () => import('../plugins/batch/index.js')),
  ref('attestation', () => import('../plugins/attestation/index.js')),
  ref('verification-context', () => import('../plugins/verification-context/index.js')),
  ref('badges', () => import('../plugins/badges/index.js')),
  ref('a2a', () => import('../plugins/a2a/index.js')),
  ref('mcp', () => import('../plugins/mcp/index.js')),
  ref('audit', () => import('../plugins/audit/index.js')),
  ref('ops', () => import('../plugins/ops/index.js')),
  ref('console', () => import('../plugins/console/index.js')),
  provisioning.data,
];

/**
 * The collection codecs every built-in plugin declares (importing them all), for a tool that reads
 * or copies every collection (`proofgate migrate`) in its stored layout.
 */
export async function builtinCollections(): Promise<CollectionCodecs> {
  const all: Plugin[] = [];
  for (const p of builtinPlugins) all.push('load' in p ? await p.load() : p);
  return pluginCollections(all);
}
