import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { typeId, typeSet } from '../../../../plugins/engines/code/python/pynode.js';

/**
 * The passes over every node skip the types their switch has no case for by one read of a typeSet
 * table (python/pynode.ts). A case added to a switch but not to its table would never run: each
 * table is read here from the source beside its switch and must hold every case label.
 */
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/** the string literals of `const NAME = typeSet([...])` (spreads of other sets listed in `spreads`) */
function tableOf(src: string, name: string, spreads: Record<string, string[]> = {}): Set<string> {
  const m = new RegExp(`const ${name} = typeSet\\(\\[([^\\]]*)\\]\\)`).exec(src);
  if (!m) throw new Error(`no typeSet named ${name}`);
  const out = new Set([...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]));
  for (const [spread, members] of Object.entries(spreads)) if (m[1].includes(`...${spread}`)) for (const x of members) out.add(x);
  return out;
}

/** the case labels of the first `switch (<subject>)` after `marker` */
function casesAfter(src: string, marker: string, subject: string): string[] {
  const at = src.indexOf(marker);
  if (at < 0) throw new Error(`no ${marker}`);
  const sw = src.indexOf(`switch (${subject})`, at);
  // the switch's block: up to the brace that closes it
  let depth = 0;
  let end = src.indexOf('{', sw);
  for (let i = end; i < src.length; i++) {
    if (src[i] === '{') depth++;
    else if (src[i] === '}' && --depth === 0) {
      end = i;
      break;
    }
  }
  const body = src.slice(sw, end);
  // only the switch's own labels: nested switches are on other subjects (`p.type`, `x.type`)
  return [...body.matchAll(/^ {8}case '([^']+)':/gm)].map((x) => x[1]);
}

const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

t.test('each pass table holds every case of the switch it guards', async (t) => {
  const resolve = read('plugins/engines/code/python/resolve.ts');
  const collected = tableOf(resolve, 'COLLECTED');
  const collectCases = casesAfter(resolve, 'private collect(nodes', 'n.type');
  t.ok(collectCases.length >= 10, 'the resolver\'s cases were found');
  for (const c of collectCases) t.ok(collected.has(c), `resolver: ${c}`);

  const analyze = read('plugins/engines/code/python/analyze.ts');
  const ruled = tableOf(analyze, 'RULED');
  const runCases = casesAfter(analyze, '  run(nodes: readonly PyNode[]): void {', 'n.type');
  t.ok(runCases.length >= 10, 'the rule pass\'s cases were found');
  for (const c of runCases) t.ok(ruled.has(c), `rules: ${c}`);
});

t.test('type numbers: one per type, stable, and a table reads 0 for types it does not hold', async (t) => {
  t.equal(typeId('call'), typeId('call'));
  t.not(typeId('call'), typeId('identifier'));
  const table = typeSet(['call']);
  t.equal(table[typeId('call')], 1);
  t.notOk(table[typeId('identifier')]);
  t.notOk(table[typeId('a type first seen after the table was built')], 'a later type is past the table: undefined, falsy');
  t.notOk(table[0], 'kind 0 (types past the bound) is in no table');
});
