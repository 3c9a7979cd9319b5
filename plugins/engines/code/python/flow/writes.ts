import { type PyNode, field } from '../parser.js';
import { namedChildren } from './kids.js';

/** Methods that change the object they are called on. */
const MUTATORS = new Set(['append', 'extend', 'insert', 'update', 'add', 'setdefault', 'pop', 'popitem', 'remove', 'clear', 'sort', 'reverse', 'discard', '__setitem__', '__delitem__']);
const SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);
const PATTERNS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list']);
const memo = new WeakMap<PyNode, string[]>();

/** `a.b[0].c` → `a`. */
function root(n: PyNode | null): PyNode | null {
  let x = n;
  while (x && (x.type === 'subscript' || x.type === 'attribute')) x = field(x, x.type === 'subscript' ? 'value' : 'object');
  return x?.type === 'identifier' ? x : null;
}

/**
 * Names of the caller's scope a function may change when called: those it declares `global` or
 * `nonlocal`, and the roots of what it writes into or mutates (`STATE['k'] = v`, `CACHE.append(v)`,
 * `cfg.mode = v`) that are neither its parameters nor its own locals. Syntactic and conservative:
 * a name listed here is changed out of the interpreter's sight when the function is inlined.
 */
export function outerWrites(def: PyNode): string[] {
  const hit = memo.get(def);
  if (hit) return hit;
  const locals = new Set<string>();
  for (const p of paramsOf(def)) {
    const id = p.type === 'identifier' ? p : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
    if (id) locals.add(id.text);
  }
  const declared = new Set<string>();
  const roots = new Set<string>();
  const walk = (n: PyNode): void => {
    if (n.type === 'global_statement' || n.type === 'nonlocal_statement') for (const c of namedChildren(n)) declared.add(c.text);
    if (n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement') {
      const left = field(n, 'left');
      // a name bound here (alone or in a tuple of targets) is the function's own; `d[k] = v` binds none
      const targets = left && PATTERNS.has(left.type) ? namedChildren(left) : [left];
      for (const t of targets) if (t?.type === 'identifier') locals.add(t.text);
    }
    const target = n.type === 'assignment' || n.type === 'augmented_assignment' ? field(n, 'left') : null;
    for (const t of target ? [target, ...namedChildren(target)] : []) if (t.type === 'subscript' || t.type === 'attribute') addRoot(t);
    if (n.type === 'delete_statement') for (const t of namedChildren(n).flatMap((c) => (c.type === 'expression_list' ? namedChildren(c) : [c]))) addRoot(t);
    if (n.type === 'call') {
      const fn = field(n, 'function');
      if (fn?.type === 'attribute' && MUTATORS.has((field(fn, 'attribute') as PyNode).text)) addRoot(field(fn, 'object'));
    }
    for (const c of n.children) if (!SCOPES.has(c.type)) walk(c);
  };
  const addRoot = (t: PyNode | null): void => {
    const r = root(t);
    if (r) roots.add(r.text);
  };
  walk(field(def, 'body') as PyNode);
  const out = [...declared, ...[...roots].filter((r) => !locals.has(r) || declared.has(r))];
  memo.set(def, out);
  return out;
}

const calledMemo = new WeakMap<PyNode, string[]>();

/**
 * Roots of the objects a function calls methods on that are not its parameters or locals
 * (`CFG.load(v)`, `APP.store.put(v)`): a method of a class of this file may change such an object.
 */
export function calledOn(def: PyNode): string[] {
  const hit = calledMemo.get(def);
  if (hit) return hit;
  const locals = new Set<string>();
  for (const p of paramsOf(def)) {
    const id = p.type === 'identifier' ? p : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
    if (id) locals.add(id.text);
  }
  const roots = new Set<string>();
  const walk = (n: PyNode): void => {
    if (n.type === 'call') {
      const fn = field(n, 'function');
      const r = fn?.type === 'attribute' ? root(field(fn, 'object')) : null;
      if (r && !locals.has(r.text)) roots.add(r.text);
    }
    for (const c of n.children) if (!SCOPES.has(c.type)) walk(c);
  };
  walk(field(def, 'body') as PyNode);
  const out = [...roots];
  calledMemo.set(def, out);
  return out;
}

/** A function's or lambda's parameters (a lambda without any has no parameter list). */
export function paramsOf(def: PyNode): PyNode[] {
  const ps = field(def, 'parameters');
  return ps ? namedChildren(ps) : [];
}
