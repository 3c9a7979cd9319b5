import { type JsNode, parentOf } from './parser.js';

/** What functionsOf needs of the resolver (resolve.ts imports this file). */
interface Functions {
  functionValues(name: string): JsNode[];
  fold(node: JsNode): string | null;
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const MODULE_ITEMS = new Set(['ImportDeclaration', 'ExportNamedDeclaration', 'ExportDefaultDeclaration', 'ExportAllDeclaration']);
const strictPrograms = new WeakMap<JsNode, boolean>();

/** A body whose directive prologue holds 'use strict'. */
function useStrict(body: JsNode | undefined): boolean {
  const stmts = body && Array.isArray(body.body) ? (body.body as JsNode[]) : [];
  for (const s of stmts) {
    if (s.type !== 'ExpressionStatement' || typeof s.directive !== 'string') return false;
    if (s.directive === 'use strict') return true;
  }
  return false;
}

/** A file with import/export is an ES module (strict); otherwise only a 'use strict' directive makes it strict. */
function strictProgram(program: JsNode): boolean {
  let strict = strictPrograms.get(program);
  if (strict === undefined) {
    strict = useStrict(program) || (program.body as JsNode[]).some((s) => MODULE_ITEMS.has(s.type));
    strictPrograms.set(program, strict);
  }
  return strict;
}

/**
 * A function in a method's place — an object literal's property (`{ run() {…} }`, `{ run: function
 * () {…} }`, getters, setters) or assigned to a member (`C.prototype.run = function () {…}`): called
 * as a method, its `this` is the object, which may have an `eval` of its own.
 */
function isMethod(fn: JsNode): boolean {
  const p = parentOf(fn);
  if (!p) return false;
  if (p.type === 'Property' || p.type === 'MethodDefinition') return fn.parentKey === 'value';
  return p.type === 'AssignmentExpression' && fn.parentKey === 'right' && (p.left as JsNode).type === 'MemberExpression';
}

/**
 * Whether `this` at `n` may be the global object, so `this.eval(src)` is eval: outside every function
 * and class (a script's top level), and inside an ordinary function — not an arrow, which keeps the
 * outer `this`, not a class member, not a method — of sloppy-mode code, which a plain call `f()`, an
 * IIFE or a callback runs with `this` bound to globalThis. Code is strict in a class, under a 'use strict' directive (of the file or
 * of an enclosing function) and in a file with import/export.
 */
export function thisMayBeGlobal(n: JsNode): boolean {
  let inFunction = false;
  for (let p = parentOf(n); p; p = parentOf(p)) {
    if (p.type === 'ClassBody' || p.type === 'StaticBlock') return false;
    if (FUNCTIONS.has(p.type)) {
      if (p.type !== 'ArrowFunctionExpression' && !inFunction && isMethod(p)) return false;
      if (p.type !== 'ArrowFunctionExpression') inFunction = true;
      // an arrow's own directive does not matter (its `this` is the outer one); the function's and its enclosers' do
      if (inFunction && useStrict(p.body as JsNode)) return false;
    }
    if (p.type === 'Program') return !inFunction || !strictProgram(p);
  }
  return !inFunction;
}

const returnsGlobal = new WeakMap<JsNode, boolean>();

/**
 * A function that returns its own `this` where that may be the global object: `(function () {
 * return this })()` is the usual way to reach globalThis in a sloppy script, `(() => this)()` at
 * top level another. Nested functions and classes are not searched (their returns are their own).
 */
export function returnsGlobalThis(fn: JsNode): boolean {
  let out = returnsGlobal.get(fn);
  if (out !== undefined) return out;
  out = false;
  const isThis = (x: JsNode | null | undefined): boolean => {
    let e = x;
    while (e && (e.type === 'ParenthesizedExpression' || e.type === 'SequenceExpression')) e = e.type === 'SequenceExpression' ? (e.expressions as JsNode[])[(e.expressions as JsNode[]).length - 1] : (e.expression as JsNode);
    return !!e && e.type === 'ThisExpression' && thisMayBeGlobal(e);
  };
  if (fn.type === 'ArrowFunctionExpression' && fn.expression) out = isThis(fn.body as JsNode);
  else {
    const stack: JsNode[] = [fn.body as JsNode];
    for (let budget = 10_000; stack.length && budget > 0 && !out; budget--) {
      const n = stack.pop() as JsNode;
      if (n.type === 'ReturnStatement') out = isThis(n.argument as JsNode | null);
      for (const [k, v] of Object.entries(n)) {
        if (k === 'parent' || k === 'loc') continue;
        for (const c of Array.isArray(v) ? v : [v]) {
          if (c && typeof c === 'object' && typeof (c as JsNode).type === 'string' && !NESTED.has((c as JsNode).type)) stack.push(c as JsNode);
        }
      }
    }
  }
  returnsGlobal.set(fn, out);
  return out;
}

const NESTED = new Set([...FUNCTIONS, 'ClassDeclaration', 'ClassExpression']);

/**
 * The functions a callee may be: a function or arrow expression, or a name bound to them
 * (declarations included), also called through `.call`/`.apply` or `.bind(…)` (given a null
 * `this`, a sloppy function still gets the global object).
 */
export function functionsOf(r: Functions, callee: JsNode, depth = 0): JsNode[] {
  let c = callee;
  while (c.type === 'ParenthesizedExpression') c = c.expression as JsNode;
  if (c.type === 'FunctionExpression' || c.type === 'ArrowFunctionExpression') return [c];
  if (c.type === 'Identifier') return r.functionValues(c.name as string);
  const via = c.type === 'CallExpression' ? (c.callee as JsNode) : c;
  if (via.type !== 'MemberExpression' || depth > 4) return [];
  const p = via.property as JsNode;
  const prop = !via.computed && p.type === 'Identifier' ? (p.name as string) : r.fold(p);
  const wraps = c.type === 'CallExpression' ? prop === 'bind' : prop === 'call' || prop === 'apply';
  return wraps ? functionsOf(r, via.object as JsNode, depth + 1) : [];
}
