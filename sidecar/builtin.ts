import { pluginCollections } from '../core/plugin/load.js';
import type { CollectionCodecs } from '../core/store/store.js';
import type { Plugin, PluginRef } from '../core/types.js';
import type { OwnedSettings, Settings } from '../core/plugin/settings.js';
import { agentsSettings } from '../plugins/agents/settings.js';
import { llmSettings } from '../plugins/providers/settings.js';
import { batchSettings } from '../plugins/batch/settings.js';
import { attestationSettings } from '../plugins/attestation/settings.js';
import { a2aSettings } from '../plugins/a2a/settings.js';
import { mcpSettings } from '../plugins/mcp/settings.js';
import { auditSettings } from '../plugins/audit/settings.js';
import { consoleSettings } from '../plugins/console/settings.js';
import { codeSettings } from '../plugins/engines/code/settings.js';
import { logicSettings } from '../plugins/engines/logic/settings.js';
import { consensusSettings } from '../plugins/engines/consensus/settings.js';
import { statsSettings } from '../plugins/engines/stats/settings.js';
import { createProvisioning } from './provision/plugin.js';

/** SVC_BOOTSTRAP_FILE in two steps, settings and objects (docs/ops.md); their manifests place them */
const provisioning = createProvisioning();

type Loaded = { default: Plugin };

/**
 * A built-in named here and imported only when enabled: a disabled engine's modules (mathjs, the
 * z3 and tree-sitter bindings, sql.js and whatever else they import) never load into the process.
 * The kernel checks that name, aliases and settings match the plugin's own when it loads it. The
 * settings declaration (a small module of its own) is named here so that the configuration is
 * checked, whole, before any plugin is imported, and whether or not the plugin is enabled.
 */
const ref = (name: string, load: () => Promise<Loaded>, o: { aliases?: readonly string[]; settings?: Settings<unknown> } = {}): PluginRef => ({
  name,
  ...(o.aliases ? { aliases: o.aliases } : {}),
  ...(o.settings ? { settings: o.settings } : {}),
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
  ref('agents', () => import('../plugins/agents/index.js'), { settings: agentsSettings }),
  ref('providers', () => import('../plugins/providers/index.js'), { settings: llmSettings }),
  ref('math', () => import('../plugins/engines/math/index.js'), { aliases: ['engine-math'] }),
  ref('natural-language', () => import('../plugins/engines/natural-language/index.js')),
  ref('fact', () => import('../plugins/engines/fact/index.js')),
  ref('logic', () => import('../plugins/engines/logic/index.js'), { settings: logicSettings }),
  ref('code', () => import('../plugins/engines/code/index.js'), { settings: codeSettings }),
  ref('sql', () => import('../plugins/engines/sql/index.js')),
  ref('process', () => import('../plugins/engines/process/index.js'), { aliases: ['engine-process'] }),
  ref('rag', () => import('../plugins/engines/rag/index.js'), { aliases: ['engine-rag'] }),
  ref('consensus', () => import('../plugins/engines/consensus/index.js'), { aliases: ['engine-consensus'], settings: consensusSettings }),
  ref('stats', () => import('../plugins/engines/stats/index.js'), { aliases: ['engine-stats'], settings: statsSettings }),
  ref('image', () => import('../plugins/engines/image/index.js'), { aliases: ['engine-image'] }),
  ref('batch', () => import('../plugins/batch/index.js'), { settings: batchSettings }),
  ref('attestation', () => import('../plugins/attestation/index.js'), { settings: attestationSettings }),
  ref('verification-context', () => import('../plugins/verification-context/index.js')),
  ref('badges', () => import('../plugins/badges/index.js')),
  ref('a2a', () => import('../plugins/a2a/index.js'), { settings: a2aSettings }),
  ref('mcp', () => import('../plugins/mcp/index.js'), { settings: mcpSettings }),
  ref('audit', () => import('../plugins/audit/index.js'), { settings: auditSettings }),
  ref('ops', () => import('../plugins/ops/index.js')),
  ref('console', () => import('../plugins/console/index.js'), { settings: consoleSettings }),
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

/** every built-in plugin's settings declaration: what the configuration is checked against */
export const builtinSettings: readonly OwnedSettings[] = builtinPlugins.flatMap((p) => (p.settings ? [{ plugin: p.name, settings: p.settings }] : []));
