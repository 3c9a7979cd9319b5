import type { App, Plugin, PluginEntry } from '../../core/types.js';
import { builtinPlugins } from '../../sidecar/builtin.js';

/** `p` with every engine it declares left cold: no warm-up task, the engine module loads on first use */
function unwarmedPlugin(p: Plugin): Plugin {
  return {
    ...p,
    register(app: App) {
      const cold: App = Object.create(app);
      cold.engine = (def) => app.engine({ ...def, warmup: undefined });
      return p.register(cold);
    },
  };
}

const unwarmed = (e: PluginEntry): PluginEntry => ('load' in e ? { ...e, load: async () => unwarmedPlugin(await e.load()) } : unwarmedPlugin(e));

/**
 * Every built-in plugin and route, no engine warmed: for a test that reads the route table or
 * whose requests stop before any engine (credentials, scopes, schemas). With builtinPlugins the
 * server warms all eleven engines (mathjs, z3, tree-sitter, sql.js …) in worker threads, seconds
 * of CPU on the suite's two cores that such a test never uses. An engine a request does reach
 * still runs, loading on its first task.
 */
export const builtinsUnwarmed: PluginEntry[] = builtinPlugins.map(unwarmed);
