import t from 'tap';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Plugin } from '../../core/types.js';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { GRAPH_END, GRAPH_START, loadAll, renderPluginGraph, replaceGraphSection } from '../../sidecar/plugin-graph.js';
import { nodeCommand } from '../helpers/child.js';

/** The plugin graph in docs/architecture.md is the one the manifests give (issue 44). */
const DOC = fileURLToPath(new URL('../../../docs/architecture.md', import.meta.url));
const TOOL = fileURLToPath(new URL('../../../docs/tools/plugin-graph.mjs', import.meta.url));

t.test('the committed graph matches the manifests', async (t) => {
  const doc = readFileSync(DOC, 'utf8');
  const fresh = replaceGraphSection(doc, renderPluginGraph(await loadAll(builtinPlugins)));
  t.equal(fresh, doc, 'stale: run `node docs/tools/plugin-graph.mjs` after a build');
});

t.test('the tool checks the same thing from the command line', async (t) => {
  const r = spawnSync(...nodeCommand([TOOL, '--check']), { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 0, r.stderr);
});

t.test('the graph draws needs solid, optional dotted, and leaves late keys to the table', async (t) => {
  const noop = () => undefined;
  const plugins: Plugin[] = [
    { name: 'user-x', needs: ['verifier.a'], optional: ['verifier.b'], late: ['verifier.*'], register: noop },
    { name: 'a', provides: ['verifier.a'], register: noop },
    { name: 'b', provides: ['verifier.b'], register: noop },
  ];
  const g = renderPluginGraph(plugins);
  t.ok(g.startsWith(GRAPH_START) && g.endsWith(GRAPH_END));
  t.match(g, 'Registration order (the fns of each request phase run in it): a → b → user-x.');
  t.match(g, 'user_x -->|verifier.a| a');
  t.match(g, 'user_x -.->|verifier.b| b');
  t.notMatch(g, /user_x \S+\|verifier\.\*\|/);
  t.match(g, '| user-x |  | `verifier.a` | `verifier.b` | `verifier.*` |');
  t.throws(() => replaceGraphSection('no markers here', g), /no plugin graph section/);
});
