// Rewrites the plugin graph in docs/architecture.md from the built-in plugins' manifests.
//   npx tsc -p tsconfig.json && node docs/tools/plugin-graph.mjs          (write)
//   node docs/tools/plugin-graph.mjs --check                               (exit 1 when stale)
// test/core/plugin-graph.test.ts runs the same check with the suite.
import { readFileSync, writeFileSync } from 'node:fs';

const doc = new URL('../architecture.md', import.meta.url);
const { builtinPlugins } = await import('../../dist/sidecar/builtin.js');
const { loadAll, renderPluginGraph, replaceGraphSection } = await import('../../dist/sidecar/plugin-graph.js');

const before = readFileSync(doc, 'utf8');
const after = replaceGraphSection(before, renderPluginGraph(await loadAll(builtinPlugins)));
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('docs/architecture.md: the plugin graph is stale; run node docs/tools/plugin-graph.mjs');
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(doc, after);
  console.error('docs/architecture.md: plugin graph rewritten');
}
// the loaded plugins' modules keep no handle open, but a stray one must not hold the tool
process.exit(0);
