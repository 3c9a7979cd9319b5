import type { PyNode } from '../pynode.js';

/**
 * Abstract values of the Python flow analysis. A value may carry a flow (untrusted data may be in
 * it: where it came from and the lines it went through), a weak-randomness flow, a known constant,
 * known list/dict contents, and the qualified names it may denote (modules, the request object, …).
 */
export type Cat =
  | 'cmdi' | 'codeinj' | 'deserialization' | 'sqli' | 'pathtraver' | 'xss' | 'xpathi'
  | 'ldapi' | 'xxe' | 'redirect' | 'hash' | 'weakrand' | 'securecookie' | 'trustbound';

export type Const = string | number | boolean | null;

export interface Flow {
  /** what the data is, e.g. `request.args` */
  what: string;
  /** 1-based lines: the source first, then each step */
  lines: number[];
  /** classes for which a sanitiser or a guard made this data safe */
  clean: ReadonlySet<Cat>;
}

export interface V {
  flow?: Flow;
  weak?: Flow;
  /**
   * the value may hold data of unknown origin (a name bound nowhere in the file, the result of a
   * callee outside it, a dynamic attribute): no sink it reaches is proven safe, none proven unsafe
   */
  unk?: Flow;
  known?: boolean;
  k?: Const;
  items?: V[];
  keys?: Map<string, V>;
  q?: string[];
  fn?: PyNode;
  /** for a function value made by functools.partial: the arguments it was given first */
  bound?: V[];
  /** for a parsed URL: the variable it was parsed from (a host check on it guards that variable) */
  of?: string;
  /** a tuple: its items cannot change, so it may be stored in another container as it is */
  tuple?: true;
  /**
   * the page a view returning this value sends (pageOf), kept where a join of differently shaped
   * values lost the items: a string returned on one path and `make_response((body, headers))` on
   * another send the string or the body, never the headers
   */
  page?: V;
  /** a plain class of this file (classes.ts), as the value its name is bound to */
  cls?: PyNode;
  /** an instance of such a class, with its attributes; its own flows carry all theirs */
  inst?: PyNode;
  attrs?: Map<string, V>;
  /** a sink method taken as a value (`run = cur.execute`): calling it calls the method on `recv` */
  bm?: { recv: V; method: string };
}

export const UNKNOWN: V = Object.freeze({}) as V;
export const konst = (k: Const): V => ({ known: true, k });
/** A value of unknown origin: `why` says what it is, `line` where it entered. */
export const unknownOrigin = (why: string, line: number): V => ({ unk: { what: why, lines: [line], clean: new Set() } });
/** Everything a value carries (its own and its elements' flows), without its shape. */
export const carried = (v: V): V => {
  const out: V = {};
  const flow = allFlow(v, 'flow');
  const weak = allFlow(v, 'weak');
  const unk = allFlow(v, 'unk');
  if (flow) out.flow = flow;
  if (weak) out.weak = weak;
  if (unk) out.unk = unk;
  return out;
};

/** The value with every class it was clean for forgotten (a decoder undid the encoding that made it so). */
export const raw = (v: V): V => {
  const out: V = { ...v };
  for (const w of ['flow', 'weak', 'unk'] as const) {
    const f = v[w];
    if (f) out[w] = { what: f.what, lines: f.lines, clean: new Set() };
  }
  return out;
};

const MAX_STEPS = 24;
const MAX_NAMES = 16;

export function step(f: Flow | undefined, line: number): Flow | undefined {
  if (!f) return f;
  const last = f.lines[f.lines.length - 1];
  if (last === line || f.lines.length >= MAX_STEPS) return f;
  return { what: f.what, lines: [...f.lines, line], clean: f.clean };
}

export function cleaned(f: Flow | undefined, cats: Iterable<Cat>): Flow | undefined {
  if (!f) return f;
  const clean = new Set(f.clean);
  for (const c of cats) clean.add(c);
  return { what: f.what, lines: f.lines, clean };
}

/** Two flows into one value: safe for a class only when both are. */
function joinFlow(a: Flow | undefined, b: Flow | undefined): Flow | undefined {
  if (!a) return b;
  if (!b) return a;
  const clean = new Set([...a.clean].filter((c) => b.clean.has(c)));
  const base = a.lines.length <= b.lines.length ? a : b;
  return { what: base.what, lines: base.lines, clean };
}

/** The value of an expression built from parts (concatenation, formatting, an unknown call). */
export function mix(parts: readonly V[], line: number): V {
  let flow: Flow | undefined;
  let weak: Flow | undefined;
  let unk: Flow | undefined;
  for (const p of parts) {
    flow = joinFlow(flow, allFlow(p, 'flow'));
    weak = joinFlow(weak, allFlow(p, 'weak'));
    unk = joinFlow(unk, allFlow(p, 'unk'));
  }
  const out: V = {};
  if (flow) out.flow = step(flow, line);
  if (weak) out.weak = step(weak, line);
  if (unk) out.unk = step(unk, line);
  return out;
}

/** A value's own flow joined with its elements' (a list holding a request value carries it). */
export function allFlow(v: V, which: 'flow' | 'weak' | 'unk', depth = 0): Flow | undefined {
  let f = v[which];
  if (depth > 4) return f;
  if (v.items) for (const i of v.items) f = joinFlow(f, allFlow(i, which, depth + 1));
  if (v.keys) for (const i of v.keys.values()) f = joinFlow(f, allFlow(i, which, depth + 1));
  return f;
}

/**
 * What a view returning `v` sends as its page: a tuple is (body, status and/or headers), the body is
 * the page; a dict or a list is sent as JSON (Flask's jsonify), no page. A value whose shape is not
 * known (no items, no keys) is the page.
 */
export function pageOf(v: V): V {
  if (v.page) return v.page;
  const body = v.tuple && v.items?.length ? v.items[0] : v;
  return !body.tuple && (body.keys || body.items) && !body.flow && !body.unk ? {} : body;
}

/** The value after a branch: either side may have run. `pages`: also keep the page a view would send (pageOf). */
export function join(a: V, b: V, pages = true): V {
  if (a === b) return a;
  const out: V = {};
  const flow = joinFlow(a.flow, b.flow);
  const weak = joinFlow(a.weak, b.weak);
  const unk = joinFlow(a.unk, b.unk);
  if (flow) out.flow = flow;
  if (weak) out.weak = weak;
  if (unk) out.unk = unk;
  if (a.known && b.known && a.k === b.k) {
    out.known = true;
    out.k = a.k;
  }
  if (a.items && b.items && a.items.length === b.items.length) out.items = a.items.map((x, i) => join(x, (b.items as V[])[i]));
  else if (a.items || b.items) {
    // lengths differ: the elements are no longer known one by one, but what they carry is kept
    const flow2 = joinFlow(allFlow({ items: a.items ?? [] }, 'flow'), allFlow({ items: b.items ?? [] }, 'flow'));
    const weak2 = joinFlow(allFlow({ items: a.items ?? [] }, 'weak'), allFlow({ items: b.items ?? [] }, 'weak'));
    const unk2 = joinFlow(allFlow({ items: a.items ?? [] }, 'unk'), allFlow({ items: b.items ?? [] }, 'unk'));
    if (flow2) out.flow = joinFlow(out.flow, flow2);
    if (weak2) out.weak = joinFlow(out.weak, weak2);
    if (unk2) out.unk = joinFlow(out.unk, unk2);
  }
  // one level: the page of a page is never read
  if (pages && (a.page || b.page || (((a.tuple && a.items) || (b.tuple && b.items)) && !out.items))) out.page = join(pageOf(a), pageOf(b), false);
  if (a.keys && b.keys) {
    const keys = new Map<string, V>();
    for (const [k, v] of a.keys) keys.set(k, join(v, b.keys.get(k) ?? UNKNOWN));
    for (const [k, v] of b.keys) if (!keys.has(k)) keys.set(k, join(v, UNKNOWN));
    out.keys = keys;
  }
  // capped: rebinding through branches doubles the names each time; a name cut here only means a
  // sink not recognised by the flow, whose presence finding then stays
  if (a.q || b.q) out.q = [...new Set([...(a.q ?? []), ...(b.q ?? [])])].slice(0, MAX_NAMES);
  if (a.fn && a.fn === b.fn && !a.bound && !b.bound) out.fn = a.fn;
  if (a.tuple && b.tuple && out.items) out.tuple = true;
  if (a.cls && a.cls === b.cls) out.cls = a.cls;
  if (a.inst && a.inst === b.inst && a.attrs && b.attrs) {
    const attrs = new Map<string, V>();
    // an attribute set on one side only: reading it on the other raises, or finds a class constant
    for (const [k, v] of a.attrs) attrs.set(k, join(v, b.attrs.get(k) ?? UNKNOWN));
    for (const [k, v] of b.attrs) if (!attrs.has(k)) attrs.set(k, join(v, UNKNOWN));
    out.inst = a.inst;
    out.attrs = attrs;
  }
  return out;
}

/**
 * A container stored inside another is reachable by more than one path (`first = rows[0]`,
 * `for row in rows`, a same-file function given `rows[0]`): a change through one is out of the other's
 * sight, so its members are of unknown origin; what it carries is kept. JavaScript does the same.
 */
export function nested(v: V, line: number): V {
  if ((!v.items && !v.keys && !v.inst) || v.tuple) return v;
  const c = carried(v);
  const out: V = { ...c, unk: join({ unk: c.unk }, unknownOrigin('the members of a container stored in another (it may change through another name)', line)).unk };
  if (v.q) out.q = v.q;
  return out;
}

export type Env = Map<string, V>;

export function joinEnv(a: Env, b: Env): Env {
  const out: Env = new Map();
  for (const [k, v] of a) out.set(k, b.has(k) ? join(v, b.get(k) as V) : v);
  for (const [k, v] of b) if (!a.has(k)) out.set(k, v);
  return out;
}

export function truthy(v: V): boolean | null {
  if (!v.known) return v.items && !v.flow ? v.items.length > 0 : null;
  const k = v.k;
  if (k === null) return false;
  if (typeof k === 'string') return k.length > 0;
  if (typeof k === 'number') return k !== 0;
  return k ?? null;
}

/**
 * Whether two scopes say the same for the analysis — which flows their values carry and for what
 * classes they are clean, which constants they are, their items', keys' and attributes' shapes —
 * whatever lines a flow went through: a loop's next pass then has nothing new to run on.
 */
export function sameShape(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (w === v) continue;
    if (!w || valueShape(v, 0) !== valueShape(w, 0)) return false;
  }
  return true;
}

function valueShape(v: V, depth: number): string {
  const f = (x: Flow | undefined): string => (x ? `[${[...x.clean].sort().join(',')}]` : '-');
  let s = `${f(v.flow)}${f(v.weak)}${f(v.unk)}${v.known ? `k${typeof v.k}:${String(v.k)}` : ''}`;
  if (depth > 3) return s;
  if (v.items) s += `(${v.items.map((x) => valueShape(x, depth + 1)).join(',')})`;
  if (v.keys) s += `{${[...v.keys].map(([k, x]) => `${k}:${valueShape(x, depth + 1)}`).join(',')}}`;
  if (v.attrs) s += `<${[...v.attrs].map(([k, x]) => `${k}:${valueShape(x, depth + 1)}`).join(',')}>`;
  if (v.page) s += `p${valueShape(v.page, depth + 1)}`;
  return s;
}

/** Every name that changed from `before` may hold what any of them holds (a loop not run to its fixpoint). */
export function widen(env: Env, before: ReadonlyMap<string, V>, line: number): void {
  const changed = [...env].filter(([k, v]) => before.get(k) !== v);
  const all = mix(changed.map(([, v]) => v), line);
  for (const [k, v] of changed) env.set(k, join(v, all));
}
