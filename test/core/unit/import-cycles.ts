import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from '../../helpers/sources.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * No import circles in the sources (type-only imports included): a circle makes module
 * initialisation order matter and hides which file owns what.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
// `from` is optional: a side-effect import (`import './codec.js'`) is an edge like any other
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?from\s+)?['"](\.[^'"]+)['"]/g;

export function importCycles(roots: string[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const f of roots.flatMap((r) => sourceFiles(r).filter((f) => f.endsWith('.ts')))) {
    const deps: string[] = [];
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(f), m[1].replace(/\.js$/, '.ts'));
      if (existsSync(target)) deps.push(target);
    }
    graph.set(f, deps);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

t.test('the scanner sees every kind of import, side effects included', async (t) => {
  const dir = tempDir(t, 'pg-cycles-');
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
  write('a.ts', "import './b.js';\nexport const a = 1;\n");
  write('b.ts', "import { c } from './c.js';\nexport const b = c;\n");
  write('c.ts', "import type { A } from './d.js';\nexport const c = 2;\nexport type C = A;\n");
  write('d.ts', "export * from './a.js';\nexport type A = number;\n");
  write('e.ts', "const text = 'import \"./a.js\"';\nexport { text };\n");
  const found = importCycles([dir]).map((c) => c.map((p) => relative(dir, p)).join(' -> '));
  t.same(found, ['a.ts -> b.ts -> c.ts -> d.ts -> a.ts']);
});

t.test('core, plugins, sidecar and the client package have no import circle', async (t) => {
  const cycles = importCycles(['core', 'plugins', 'sidecar', 'packages/client/src'].map((d) => join(ROOT, d)));
  t.same(cycles.map((c) => c.map((p) => relative(ROOT, p)).join(' -> ')), []);
});
