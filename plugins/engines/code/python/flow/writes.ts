import { type PyNode, field, namedChildren } from '../parser.js';
import { getFact, setFact } from './facts.js';
import { ModuleIndex, type OuterWrites } from './module-index.js';

/** Methods that change the object they are called on. */
const MUTATORS = new Set(['append', 'extend', 'insert', 'update', 'add', 'setdefault', 'pop', 'popitem', 'remove', 'clear', 'sort', 'reverse', 'discard', '__setitem__', '__delitem__']);
const SCOPES = new Set(['function_definition', 'class_definition', 'lambda']);
const PATTERNS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list']);

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
export function outerWrites(def: PyNode): readonly string[] {
  return outerOf(def).writes;
}


const NONE: OuterWrites = Object.freeze({ writes: Object.freeze([]) as readonly string[], declared: new Set<string>() });

function outerOf(def: PyNode): OuterWrites {
  const index = ModuleIndex.of(def);
  index.outer ??= allOuterWrites(index);
  return index.outer.get(def) ?? NONE;
}

/**
 * outerWrites of every function and lambda of a module from its index's statements: each statement
 * counts for the function whose body holds it outside any nested scope (scopeOf). Most statements
 * write into no name outside their function (`x = …`, a call that is no mutator's): those are passed
 * over before their function is looked for, and a function's locals are gathered only when it writes
 * into a name that may be outside it; a function that does neither gets NONE.
 */
function allOuterWrites(index: ModuleIndex): Map<PyNode, OuterWrites> {
  const declared = new Map<PyNode, Set<string>>();
  const roots = new Map<PyNode, Set<string>>();
  for (const n of index.gathers) {
    const g = n.type === 'global_statement' || n.type === 'nonlocal_statement';
    if (!g && !mayWriteOut(n)) continue;
    const found = g ? namedChildren(n).map((c) => c.text) : writtenRoots(n);
    if (!found.length) continue;
    const def = scopeOf(n);
    if (!def) continue;
    const into = g ? declared : roots;
    const set = into.get(def) ?? into.set(def, new Set()).get(def);
    for (const w of found) set?.add(w);
  }
  const out = new Map<PyNode, OuterWrites>();
  if (!declared.size && !roots.size) return out;
  const locals = roots.size ? localNames(index, roots) : null;
  for (const def of new Set([...declared.keys(), ...roots.keys()])) {
    const d: ReadonlySet<string> = declared.get(def) ?? NONE.declared;
    const own = locals?.get(def);
    out.set(def, { writes: [...d, ...[...(roots.get(def) ?? [])].filter((r) => !own?.has(r) || d.has(r))], declared: d });
  }
  return out;
}

/** Whether a gathered statement or call may write into a name outside its function (writtenRoots, cheaply). */
function mayWriteOut(n: PyNode): boolean {
  switch (n.type) {
    case 'assignment':
    case 'augmented_assignment':
      return field(n, 'left')?.type !== 'identifier';
    case 'delete_statement':
      return true;
    case 'call': {
      const fn = field(n, 'function');
      return fn?.type === 'attribute' && MUTATORS.has((field(fn, 'attribute') as PyNode).text);
    }
    default:
      return false;
  }
}

/**
 * For each function that writes into a root: its parameters and the names its own assignments and
 * loops bind (alone or in a tuple of targets), from the index's statements.
 */
function localNames(index: ModuleIndex, roots: ReadonlyMap<PyNode, unknown>): Map<PyNode, Set<string>> {
  const out = new Map<PyNode, Set<string>>();
  for (const def of roots.keys()) {
    const locals = new Set<string>();
    for (const p of paramsOf(def)) {
      const id = p.type === 'identifier' ? p : (field(p, 'name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
      if (id) locals.add(id.text);
    }
    out.set(def, locals);
  }
  for (const n of index.gathers) {
    if (n.type !== 'assignment' && n.type !== 'augmented_assignment' && n.type !== 'for_statement') continue;
    const left = field(n, 'left');
    // `d[k] = v` binds none
    const targets = left && PATTERNS.has(left.type) ? namedChildren(left) : [left];
    if (!targets.some((t) => t?.type === 'identifier')) continue;
    const def = scopeOf(n);
    const locals = def && out.get(def);
    if (!locals) continue;
    for (const t of targets) if (t?.type === 'identifier') locals.add(t.text);
  }
  return out;
}

/** The roots of what one statement or call writes into or mutates (`STATE['k'] = v`, `cfg.mode = v`, `del d[k]`, `CACHE.append(v)`). */
function writtenRoots(n: PyNode): string[] {
  const out: string[] = [];
  const addRoot = (t: PyNode | null): void => {
    const r = root(t);
    if (r) out.push(r.text);
  };
  const target = n.type === 'assignment' || n.type === 'augmented_assignment' ? field(n, 'left') : null;
  if (target) for (const t of [target, ...namedChildren(target)]) if (t.type === 'subscript' || t.type === 'attribute') addRoot(t);
  if (n.type === 'delete_statement') for (const t of namedChildren(n).flatMap((c) => (c.type === 'expression_list' ? namedChildren(c) : [c]))) addRoot(t);
  if (n.type === 'call') {
    const fn = field(n, 'function');
    if (fn?.type === 'attribute' && MUTATORS.has((field(fn, 'attribute') as PyNode).text)) addRoot(field(fn, 'object'));
  }
  return out;
}

export function rebound(def: PyNode): ReadonlySet<string> {
  return outerOf(def).declared;
}

/** A function's or lambda's parameters (a lambda without any has no parameter list). */
export function paramsOf(def: PyNode): PyNode[] {
  const ps = field(def, 'parameters');
  return ps ? namedChildren(ps) : [];
}

const BINDING_PATTERNS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'list_splat_pattern', 'tuple', 'list', 'parenthesized_expression', 'expression_list']);

/**
 * Every name a function binds in its own scope — parameters, assignment, `for`, `with … as`, `except … as`,
 * walrus and `del` targets, imports, nested `def`/`class` names, `match` captures — but not those it declares
 * `global`/`nonlocal`. Generous on purpose: a caller's name listed here is never taken from the function's
 * scope after a call (what the function left under it may be its own local).
 */
export function localsOf(def: PyNode): ReadonlySet<string> {
  const hit = getFact<ReadonlySet<string>>(def, 'locals');
  if (hit) return hit;
  const out = new Set<string>();
  const declared = new Set<string>();
  for (const p of paramsOf(def)) for (const id of idsIn(p)) out.add(id);
  const targets = (t: PyNode | null): void => {
    if (!t) return;
    if (t.type === 'identifier') out.add(t.text);
    else if (BINDING_PATTERNS.has(t.type)) for (const c of namedChildren(t)) targets(c);
  };
  const walk = (n: PyNode): void => {
    switch (n.type) {
      case 'global_statement':
      case 'nonlocal_statement':
        for (const c of namedChildren(n)) declared.add(c.text);
        return;
      case 'assignment':
      case 'augmented_assignment':
      case 'for_statement':
        targets(field(n, 'left'));
        break;
      case 'named_expression':
        targets(field(n, 'name'));
        break;
      case 'delete_statement':
        for (const c of namedChildren(n)) targets(c);
        break;
      case 'as_pattern':
      case 'as_pattern_target':
      case 'except_clause':
      case 'except_group_clause':
      case 'case_pattern':
      case 'import_statement':
      case 'import_from_statement':
      case 'future_import_statement':
        for (const id of idsIn(n, n.type === 'except_clause' || n.type === 'except_group_clause')) out.add(id);
        break;
      case 'function_definition':
      case 'class_definition':
        targets(field(n, 'name'));
        return;
      case 'lambda':
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression':
        return;
    }
    for (const c of n.children) if (c.named) walk(c);
  };
  walk(field(def, 'body') as PyNode);
  for (const d of declared) out.delete(d);
  setFact<ReadonlySet<string>>(def, 'locals', out);
  return out;
}

/** Identifiers under a node (an except clause's: not inside its block). */
function idsIn(n: PyNode, skipBlock = false): string[] {
  const out: string[] = [];
  const walk = (x: PyNode): void => {
    if (x.type === 'identifier') out.push(x.text);
    for (const c of x.children) if (c.named && !(skipBlock && c.type === 'block')) walk(c);
  };
  walk(n);
  return out;
}

/**
 * Module-level names some function of the file may change when it runs as an entry point — what its
 * outerWrites lists, and the objects it calls a method of a class of this file on (`BOX.put(v)`). A
 * handler's change outlives its request: another entry point may read it later, so for entry points
 * these names are shared (their members of unknown origin).
 */
export function moduleWrites(index: ModuleIndex): Set<string> {
  const methods = new Set<string>();
  const classes = new Set<string>();
  for (const n of index.classes) {
    classes.add((field(n, 'name') as PyNode).text);
    for (const s of namedChildren(field(n, 'body') ?? n)) {
      const d = s.type === 'decorated_definition' ? field(s, 'definition') : s;
      if (d?.type === 'function_definition') methods.add((field(d, 'name') as PyNode).text);
    }
  }
  const out = new Set<string>();
  for (const def of index.defs) for (const w of outerWrites(def)) out.add(w);
  if (!methods.size) return out;
  // a call of a method of the file's classes, in the body of the function or lambda around it
  for (const n of index.calls) {
    const fn = field(n, 'function');
    if (fn?.type !== 'attribute' || !methods.has((field(fn, 'attribute') as PyNode).text)) continue;
    const def = scopeOf(n);
    if (!def) continue;
    const r = root0(field(fn, 'object'));
    // a method called on the class itself (a static one) changes no instance
    if (r && !localsOf(def).has(r) && !classes.has(r)) out.add(r);
  }
  return out;
}

/** The function or lambda whose body holds `n` outside any nested scope, or null (module level, a class body, a default). */
function scopeOf(n: PyNode): PyNode | null {
  let x = n;
  while (x.parent && !SCOPES.has(x.parent.type)) x = x.parent;
  const s = x.parent;
  if (!s || s.type === 'class_definition') return null;
  return x === field(s, 'body') ? s : null;
}

function root0(n: PyNode | null): string | null {
  let x = n;
  while (x && (x.type === 'subscript' || x.type === 'attribute')) x = field(x, x.type === 'subscript' ? 'value' : 'object');
  return x?.type === 'identifier' ? x.text : null;
}
