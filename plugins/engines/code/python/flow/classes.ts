import { type PyNode, field, namedChildren } from '../parser.js';
import { getFact, hasFact, setFact } from './facts.js';
import { type Env, type V, carried, join, mix, unknownOrigin } from './value.js';

export interface Method {
  def: PyNode;
  isStatic: boolean;
}

const LITERALS = new Set(['string', 'concatenated_string', 'integer', 'float', 'true', 'false', 'none']);

/**
 * The methods of a class of this file whose instances the interpreter can follow: no base class but
 * `object`, no decorator or metaclass, a body of methods (plain or `@staticmethod`), literal class
 * constants and docstrings only, and no special method but `__init__` (`__getattr__`, `__setattr__`,
 * `__str__`, a property… would run code the interpreter does not see where an attribute is read,
 * written or the object converted). A method that rebinds its `self` writes to another object, one
 * that lets it escape makes a second way to it. Any other class: null, and its instances stay of
 * unknown origin.
 */
export function plainClass(c: PyNode): Map<string, Method> | null {
  if (hasFact(c, 'plainClass')) return getFact<Map<string, Method> | null>(c, 'plainClass') ?? null;
  setFact(c, 'plainClass', null);
  if (c.parent?.type === 'decorated_definition' || !usedPlainly(c)) return null;
  const bases = field(c, 'superclasses');
  if (bases && !namedChildren(bases).every((b) => b.type === 'identifier' && b.text === 'object')) return null;
  const body = field(c, 'body');
  if (!body) return null;
  const methods = new Map<string, Method>();
  for (const s of namedChildren(body)) {
    if (s.type === 'pass_statement') continue;
    if (s.type === 'expression_statement') {
      const [x] = namedChildren(s);
      if (x && LITERALS.has(x.type) && namedChildren(s).length === 1) continue;
      if (x?.type === 'assignment' && field(x, 'left')?.type === 'identifier' && LITERALS.has(field(x, 'right')?.type ?? '')) continue;
      return null;
    }
    let def = s;
    let isStatic = false;
    if (s.type === 'decorated_definition') {
      const decos = namedChildren(s).filter((d) => d.type === 'decorator');
      if (decos.length !== 1 || decos[0].text.replace(/\s/g, '') !== '@staticmethod') return null;
      def = field(s, 'definition') as PyNode;
      isStatic = true;
    }
    if (def?.type !== 'function_definition') return null;
    const name = (field(def, 'name') as PyNode).text;
    if (/^__.*__$/.test(name) && name !== '__init__') return null;
    if (!isStatic && rebindsSelf(def)) return null;
    methods.set(name, { def, isStatic });
  }
  setFact(c, 'plainClass', methods);
  return methods;
}

/** Reflection that may change a class or reach its methods another way than the interpreter sees. */
const REFLECTION = /__class__|__dict__|__bases__|__mro__|__getattribute__|\bsetattr\b|\bvars\s*\(|\btype\s*\(|\bdelattr\b/;

/**
 * The class's name is used in the file only to be called (`Cls(...)`), to call a method of it
 * (`Cls.util(...)`) or in `isinstance`/`issubclass`: nothing rebinds it, patches its methods
 * (`Cls.run = other`), subclasses it or hands it elsewhere; and the file uses no reflection that
 * reaches a class through its instances (`type(o).run = …`, `o.__class__`, `setattr`).
 */
function usedPlainly(c: PyNode): boolean {
  let root = c;
  while (root.parent) root = root.parent;
  return !misused(root).has((field(c, 'name') as PyNode).text);
}


/** Names of the module's classes used otherwise than usedPlainly allows (every one, under reflection): one walk per module. */
function misused(root: PyNode): Set<string> {
  const hit = getFact<Set<string>>(root, 'misusedClasses');
  if (hit) return hit;
  const classes = new Set<string>();
  const out = new Set<string>();
  const defs = (n: PyNode): void => {
    if (n.type === 'class_definition') classes.add((field(n, 'name') as PyNode).text);
    for (const c of n.children) if (c.named) defs(c);
  };
  defs(root);
  if (REFLECTION.test(root.text)) for (const c of classes) out.add(c);
  const ok = (id: PyNode): boolean => {
    const p = id.parent;
    if (!p) return false;
    if (p.type === 'class_definition' && id.field === 'name') return true;
    if (p.type === 'call' && id.field === 'function') return true;
    if (p.type === 'attribute' && id.field === 'object') return p.parent?.type === 'call' && p.field === 'function';
    const call = p.type === 'argument_list' ? p.parent : null;
    const fn = call ? field(call, 'function') : null;
    return fn?.type === 'identifier' && (fn.text === 'isinstance' || fn.text === 'issubclass') && namedChildren(p)[0] !== id;
  };
  const walk = (n: PyNode): void => {
    if (n.type === 'identifier' && classes.has(n.text) && !ok(n)) out.add(n.text);
    for (const c of n.children) if (c.named) walk(c);
  };
  if (classes.size && out.size < classes.size) walk(root);
  setFact(root, 'misusedClasses', out);
  return out;
}

/**
 * The method rebinds its `self`, or lets it escape: `self` anywhere but before a dot (`return self`,
 * `REGISTRY.append(self)`, `other.peer = self`, `print(self)`) is a second way to reach the instance,
 * whose changes through it the interpreter would not see.
 */
function rebindsSelf(def: PyNode): boolean {
  const first = namedChildren(field(def, 'parameters') as PyNode)[0];
  if (first?.type !== 'identifier') return true;
  const self = first.text;
  const walk = (n: PyNode): boolean => {
    if (n.type === 'identifier' && n.text === self && n !== first && !(n.parent?.type === 'attribute' && n.field === 'object')) return true;
    if (n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement' || n.type === 'named_expression' || n.type === 'as_pattern' || n.type === 'global_statement' || n.type === 'nonlocal_statement' || n.type === 'delete_statement') {
      const t = field(n, n.type === 'named_expression' ? 'name' : 'left') ?? n;
      if (targets(t).some((x) => x.type === 'identifier' && x.text === self)) return true;
    }
    return n.children.some(walk);
  };
  return walk(field(def, 'body') as PyNode);
}

const PATTERNS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list', 'as_pattern_target', 'list_splat_pattern']);

/** The names a target binds (`a`, `a, (b, *c)`), not the objects it writes into (`a.x`, `a[0]`). */
function targets(n: PyNode): PyNode[] {
  if (n.type === 'identifier') return [n];
  return PATTERNS.has(n.type) ? namedChildren(n).flatMap(targets) : [];
}

/** An instance of a plain class: what it carries as data is everything its attributes hold. */
export function instance(cls: PyNode, attrs: Map<string, V>, also?: V): V {
  const own = carried({ keys: attrs });
  return { ...(also ? join(own, carried(also)) : own), inst: cls, attrs };
}

/**
 * The instance bound to `name` with the attributes written through it since (`name.x = v`,
 * `name.items.append(v)` keep their values under `name.x` in the scope) folded in. A write deeper
 * than one attribute into one not followed as an instance leaves that attribute what it carried,
 * of unknown origin.
 */
export function settled(name: string, v: V, env: Env, line: number): V {
  const prefix = `${name}.`;
  let attrs: Map<string, V> | null = null;
  const deeper: [string, V][] = [];
  for (const [k, x] of env) {
    if (!k.startsWith(prefix)) continue;
    const rest = k.slice(prefix.length);
    attrs ??= new Map(v.attrs);
    if (!rest.includes('.')) attrs.set(rest, x.inst ? settled(k, x, env, line) : x);
    else deeper.push([rest.slice(0, rest.indexOf('.')), x]);
  }
  if (!attrs) return v;
  for (const [first, x] of deeper) {
    if (env.get(`${prefix}${first}`)?.inst) continue; // folded by the settling above
    attrs.set(first, join(mix([attrs.get(first) ?? {}, x], line), unknownOrigin(`${name}.${first} (changed through an attribute of it)`, line)));
  }
  return instance(v.inst as PyNode, attrs, v);
}

/** Removes the scope's entries for attributes of `name` (its value was replaced or settled). */
export function dropAttrs(env: Env, name: string): void {
  const prefix = `${name}.`;
  for (const k of env.keys()) if (k.startsWith(prefix)) env.delete(k);
}
