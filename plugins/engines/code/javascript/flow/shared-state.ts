import type { JsNode } from '../parser.js';
import { type V, join, unknownOrigin } from '../../python/flow/index.js';
import { JEnv, type JV } from './value.js';

/**
 * State one entry point writes outlives its call (python/flow/writes.ts, `moduleWrites`): a handler's
 * `CONFIG.cmd = req.body.cmd` is still there when another handler runs `exec(CONFIG.cmd)`, so a name
 * some function of the file may change is of unknown origin for every entry point, route handler and
 * callback that runs later. The scan is syntactic and generous: it does not ask which scope a name
 * is bound in (a local that shares a module name's spelling widens the module's too), only whether
 * some function writes it, changes what it holds, or hands it on where it may be changed.
 */
export interface SharedNames {
  /** names some function assigns (`CMD = v`, `CMD++`, `for (CMD of …)`) */
  rebound: Set<string>;
  /** names whose object some function changes or hands on (`O.k = v`, `A.push(v)`, `f(O)`, `x = O`) */
  changed: Set<string>;
  /** names some function hands a member of on (`f(O.sub)`, `x = O.sub`): an object held there may be changed */
  inner: Set<string>;
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Methods that read an object, an array, a Map or a string and change none of them. */
const PURE_METHODS = new Set([
  'get', 'has', 'includes', 'indexOf', 'lastIndexOf', 'slice', 'map', 'filter', 'find', 'findIndex', 'findLast', 'findLastIndex', 'some', 'every',
  'join', 'keys', 'values', 'entries', 'toString', 'concat', 'reduce', 'reduceRight', 'flat', 'flatMap', 'at', 'trim', 'trimStart', 'trimEnd',
  'split', 'replace', 'replaceAll', 'startsWith', 'endsWith', 'toLowerCase', 'toUpperCase', 'charAt', 'charCodeAt', 'substring', 'substr', 'padStart',
  'padEnd', 'match', 'matchAll', 'search', 'test', 'localeCompare', 'normalize', 'repeat', 'toFixed', 'toJSON', 'valueOf', 'hasOwnProperty',
]);

/** Where a value is only looked at: compared, converted, tested, used as a key. */
function onlyRead(top: JsNode): boolean {
  const p = top.parent as JsNode | undefined;
  const key = top.parentKey as string;
  if (!p) return true;
  switch (p.type) {
    case 'TemplateLiteral':
      // a tag gets the values themselves
      return (p.parent as JsNode | undefined)?.type !== 'TaggedTemplateExpression';
    case 'BinaryExpression':
    case 'UnaryExpression':
    case 'IfStatement':
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'SwitchStatement':
    case 'SwitchCase':
    case 'ExpressionStatement':
      return !(p.type === 'UnaryExpression' && p.operator === 'delete');
    case 'ConditionalExpression':
    case 'ForStatement':
      return key === 'test';
    case 'MemberExpression':
      return key === 'property';
    case 'ForOfStatement':
    case 'ForInStatement':
      // iterating reads the elements, which are then bound to the loop's name: the elements are handed on
      return false;
  }
  return false;
}

/**
 * Whether a node lies inside a function or an instance field's initialiser, which runs at each `new`
 * (the module's own code runs once, in order, as the analysis sees it).
 */
function inFunction(n: JsNode): boolean {
  for (let p = n.parent as JsNode | undefined; p; p = p.parent as JsNode | undefined) if (FUNCTIONS.has(p.type) || (p.type === 'PropertyDefinition' && !p.static)) return true;
  return false;
}

/** A name being bound, not used: a declaration, a parameter, a key or member name, a label, an import. */
function binding(n: JsNode): boolean {
  const p = n.parent as JsNode | undefined;
  const key = n.parentKey as string;
  if (!p) return true;
  if (p.type === 'VariableDeclarator' && key === 'id') return true;
  if ((FUNCTIONS.has(p.type) || p.type === 'ClassDeclaration' || p.type === 'ClassExpression') && (key === 'id' || key === 'params')) return true;
  if (p.type === 'MemberExpression' && key === 'property' && !p.computed) return true;
  if ((p.type === 'Property' || p.type === 'MethodDefinition' || p.type === 'PropertyDefinition') && key === 'key' && !p.computed) return !(p.type === 'Property' && p.shorthand && (p.parent as JsNode)?.type === 'ObjectExpression');
  if (p.type === 'LabeledStatement' || p.type === 'BreakStatement' || p.type === 'ContinueStatement' || p.type.startsWith('Import') || p.type.startsWith('Export')) return true;
  if (p.type === 'CatchClause' && key === 'param') return true;
  return false;
}

/** Whether `n` is inside a pattern that is the target of an assignment or a loop's binding. */
function assignedPattern(n: JsNode): boolean {
  let c = n;
  for (let p = c.parent as JsNode | undefined; p; c = p, p = p.parent as JsNode | undefined) {
    if (p.type === 'AssignmentExpression') return c.parentKey === 'left';
    if ((p.type === 'ForOfStatement' || p.type === 'ForInStatement') && c.parentKey === 'left') return true;
    if (p.type === 'VariableDeclarator' || FUNCTIONS.has(p.type) || p.type === 'CatchClause') return false;
    if (!['ArrayPattern', 'ObjectPattern', 'Property', 'RestElement', 'AssignmentPattern'].includes(p.type)) return false;
    if (p.type === 'AssignmentPattern' && c.parentKey !== 'left') return false;
  }
  return false;
}

/** The names every function of the file may change (see SharedNames). */
export function sharedNames(order: readonly JsNode[]): SharedNames {
  const out: SharedNames = { rebound: new Set(), changed: new Set(), inner: new Set() };
  for (const n of order) {
    // an object the module exports may be changed by any module importing it
    if (n.type === 'ExportNamedDeclaration' || n.type === 'ExportDefaultDeclaration') {
      const d = n.declaration as JsNode | null;
      if (d?.type === 'VariableDeclaration') for (const v of d.declarations as JsNode[]) for (const id of patternNames(v.id as JsNode)) out.changed.add(id);
      if (d?.type === 'Identifier') out.changed.add(d.name as string);
      for (const sp of (n.specifiers as JsNode[] | undefined) ?? []) if ((sp.local as JsNode)?.type === 'Identifier') out.changed.add((sp.local as JsNode).name as string);
      continue;
    }
    // `this.x = v` in a static method or block of a class changes the class itself
    if (n.type === 'ThisExpression' && inFunction(n)) {
      const cls = staticClassOf(n) ?? literalOf(n);
      if (cls) out.changed.add(cls);
      continue;
    }
    if (n.type !== 'Identifier' || binding(n) || !inFunction(n)) continue;
    const name = n.name as string;
    const p = n.parent as JsNode;
    if (assignedPattern(n) || (p.type === 'UpdateExpression')) {
      out.rebound.add(name);
      continue;
    }
    // up the member chain rooted here: `N.a[k].b`
    let top = n;
    while ((top.parent as JsNode | undefined)?.type === 'MemberExpression' && top.parentKey === 'object') top = top.parent as JsNode;
    while ((top.parent as JsNode | undefined)?.type === 'ChainExpression' || (top.parent as JsNode | undefined)?.type === 'TSNonNullExpression') top = top.parent as JsNode;
    const tp = top.parent as JsNode | undefined;
    if (top === n) {
      if (tp && tp.type === 'CallExpression' && top.parentKey === 'callee') continue;
      if (!onlyRead(top)) out.changed.add(name);
      continue;
    }
    // a member chain: written, deleted, updated, a method that may change it, or handed on
    if (assignedPattern(top) || tp?.type === 'UpdateExpression' || (tp?.type === 'UnaryExpression' && tp.operator === 'delete')) out.changed.add(name);
    else if (tp && (tp.type === 'CallExpression' || tp.type === 'NewExpression') && top.parentKey === 'callee') {
      const m = top.type === 'MemberExpression' && !top.computed ? ((top.property as JsNode).name as string | undefined) : undefined;
      if (!m || !PURE_METHODS.has(m)) out.changed.add(name);
    } else if (!onlyRead(top)) out.inner.add(name);
  }
  return out;
}

/** The name an object literal is bound to whose method (a setter, `toString`, any) a `this` is in. */
function literalOf(n: JsNode): string | null {
  let p = n.parent as JsNode | undefined;
  while (p && p.type !== 'FunctionExpression' && p.type !== 'FunctionDeclaration') p = p.parent as JsNode | undefined;
  const prop = p?.parent as JsNode | undefined;
  const obj = prop?.type === 'Property' ? (prop.parent as JsNode | undefined) : undefined;
  const decl = obj?.type === 'ObjectExpression' ? (obj.parent as JsNode | undefined) : undefined;
  if (decl?.type === 'VariableDeclarator' && (decl.id as JsNode).type === 'Identifier') return (decl.id as JsNode).name as string;
  if (decl?.type === 'AssignmentExpression' && (decl.left as JsNode).type === 'Identifier') return (decl.left as JsNode).name as string;
  return null;
}

/** The class whose static method or static block a `this` is in. */
function staticClassOf(n: JsNode): string | null {
  let fnSeen = false;
  for (let p = n.parent as JsNode | undefined; p; p = p.parent as JsNode | undefined) {
    if (p.type === 'FunctionExpression' || p.type === 'FunctionDeclaration') {
      if (fnSeen) return null;
      fnSeen = true;
      const m = p.parent as JsNode | undefined;
      if (!(m?.type === 'MethodDefinition' && m.static)) return null;
    }
    if (p.type === 'StaticBlock' || (p.type === 'PropertyDefinition' && p.static)) fnSeen = true;
    if ((p.type === 'ClassDeclaration' || p.type === 'ClassExpression') && fnSeen) {
      const id = p.id as JsNode | null;
      const named = id ?? ((p.parent as JsNode | undefined)?.type === 'VariableDeclarator' ? ((p.parent as JsNode).id as JsNode) : null);
      return named?.type === 'Identifier' ? (named.name as string) : null;
    }
  }
  return null;
}

/**
 * Once the module's code has run, every scope a function closes over is as entry points find it: its
 * own names some function may change are widened where they are held, so a helper a handler calls in
 * place (`function run() { exec(CONFIG.cmd) }`), which closes over that scope and not the handler's, sees them too.
 */
export function widenHeld(scopes: Iterable<JEnv>, names: SharedNames, line: number): void {
  for (const env of new Set(scopes)) {
    const own = new JEnv(null, env);
    const view = sharedScope(own, names, line);
    if (view !== own) for (const [k, w] of view) env.set(k, w);
  }
}

/**
 * The scope an entry point, a route handler or a later callback runs from: each name of `scope` that
 * some function may change holds, beside what it held, data of unknown origin (a rebound name), or
 * is an object other code may change (its members of unknown origin).
 */
export function sharedScope(scope: JEnv, names: SharedNames, line: number): JEnv {
  const own: Array<[string, JV]> = [];
  const why = 'state a function of the file changes, which may have run before';
  for (const k of new Set([...names.rebound, ...names.changed, ...names.inner])) {
    const v = scope.get(k) as JV | undefined;
    if (!v) continue;
    let w: JV = names.rebound.has(k) ? join(v, unknownOrigin(why, line)) : v;
    // a primitive cannot be changed through another name; an object or array can, member by member
    if (names.changed.has(k) && (v.keys || v.items)) w = { ...v, unk: join(w, unknownOrigin(why, line)).unk, esc: true };
    else if (names.inner.has(k) && (v.keys || v.items)) w = { ...w, ...nested(v, why, line) };
    if (w === v) continue;
    own.push([k, w]);
  }
  return own.length ? new JEnv(scope, own) : scope;
}

/** The objects and arrays an object holds (not its texts and numbers) made ones other code may change. */
function nested(v: V, why: string, line: number, depth = 0): V {
  const one = (m: V): V => (m.keys || m.items ? (depth < 4 ? { ...nested(m, why, line, depth + 1), unk: join(m, unknownOrigin(why, line)).unk, esc: true } as JV : join(m, unknownOrigin(why, line))) : m);
  return { ...(v.keys ? { keys: new Map([...v.keys].map(([k, m]) => [k, one(m)])) } : {}), ...(v.items ? { items: v.items.map(one) } : {}) };
}

function patternNames(p: JsNode): string[] {
  switch (p.type) {
    case 'Identifier': return [p.name as string];
    case 'ObjectPattern': return (p.properties as JsNode[]).flatMap((x) => patternNames((x.type === 'RestElement' ? x.argument : x.value) as JsNode));
    case 'ArrayPattern': return (p.elements as Array<JsNode | null>).flatMap((x) => (x ? patternNames(x) : []));
    case 'RestElement': return patternNames(p.argument as JsNode);
    case 'AssignmentPattern': return patternNames(p.left as JsNode);
  }
  return [];
}
