import t from 'tap';
import { linkParents, parseJavaScript, type JsNode } from '../../../../plugins/engines/code/javascript/parser.js';
import { sharedNames } from '../../../../plugins/engines/code/javascript/flow/shared-state.js';

/**
 * The syntactic scan behind shared state (javascript/flow/shared-state.ts): which names some function
 * of the file may change. A name it misses is read as its module value by every handler (unsound); a
 * name it adds only widens (it does not ask which scope a name is bound in: a parameter that shares a
 * module name's spelling widens the module's too). Hostile rows hide the write behind an alias, a
 * method, a pattern, a call.
 */
function scan(src: string): ReturnType<typeof sharedNames> {
  const p = parseJavaScript(src);
  if (!p.ast) throw new Error(`does not parse: ${src}`);
  return sharedNames(linkParents(p.ast as JsNode) ?? []);
}

t.test('writes inside functions are found, however spelled', async (t) => {
  const changed: Array<[string, string]> = [
    ['member', 'const O = {}; function f(v) { O.k = v; }'],
    ['computed member', "const O = {}; const g = (v) => { O['k'] = v; };"],
    ['nested member', 'const O = { a: {} }; function f(v) { O.a.b = v; }'],
    ['delete', 'const O = { k: 1 }; function f() { delete O.k; }'],
    ['update of a member', 'const O = { n: 1 }; function f() { O.n++; }'],
    ['a method not known to be a read', 'const A = []; function f(v) { A.push(v); }'],
    ['a method reached by a computed name', "const A = []; function f(v) { A['push'](v); }"],
    ['an optional call', 'const O = {}; function f(v) { O?.put?.(v); }'],
    ['handed to a call', 'const O = {}; function f(v) { Object.assign(O, v); }'],
    ['aliased', 'const O = {}; function f(v) { const c = O; c.k = v; }'],
    ['put in an array', 'const O = {}; function f(v) { for (const o of [O]) o.k = v; }'],
    ['returned', 'const O = {}; function f() { return O; }'],
    ['a member pattern target', 'const O = {}; function f(v) { [O.k] = v; }'],
    ['a static method writing this', 'class C { static put(v) { this.k = v; } }'],
    ['an instance field initialiser', 'const O = {}; class C { x = (O.k = 1); }'],
    ['an ESM export', 'export const O = { k: 1 };'],
    ["its own method writing this", "const O = { k: 'a', toString() { this.k = globalThis.v; return ''; } };"],
    ['handed to a template tag', 'const O = {}; function f() { return tag`${O}`; }'],
  ];
  for (const [name, src] of changed) {
    // the name the row's function changes: its first declared name
    const target = /^(?:export )?(?:const|let|class) (\w+)/.exec(src)?.[1] as string;
    t.ok(scan(src).changed.has(target), `${name}: ${target} changed (${[...scan(src).changed].join(', ')})`);
  }
  const rebound: Array<[string, string]> = [
    ['assigned', "let X = 'a'; function f(v) { X = v; }"],
    ['compound', "let X = 'a'; function f(v) { X += v; }"],
    ['updated', 'let X = 0; const f = () => { X++; };'],
    ['destructured into', "let X = 'a'; function f(o) { ({ k: X } = o); }"],
    ['a loop target', "let X = 'a'; function f(xs) { for (X of xs); }"],
  ];
  for (const [name, src] of rebound) t.ok(scan(src).rebound.has('X'), `${name}: rebound`);
});

t.test('reads and the module code itself change nothing', async (t) => {
  const reads: Array<[string, string]> = [
    ['a member read into a call', "const O = { k: 'a' }; function f() { console.log(O.k); }"],
    ['a pure method', "const A = ['a']; function f(v) { return A.includes(v) && A.join(','); }"],
    ['compared and tested', "const O = { k: 'a' }; function f(v) { if (O.k === v) return typeof O; }"],
    ['written at the top level', "const O = {}; O.k = 'a'; let X = 1; X = 2;"],
  ];
  for (const [name, src] of reads) {
    const s = scan(src);
    t.notOk(s.changed.has('O') || s.changed.has('A') || s.rebound.has('X') || s.rebound.has('O'), `${name}: unchanged (${[...s.changed, ...s.rebound].join(', ')})`);
  }
});
