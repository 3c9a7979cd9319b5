import type { JsNode } from '../parser.js';
import { type Cat, type Const, type Flow, type V, cleaned, join, konst } from '../../python/flow/index.js';

/**
 * The abstract values are the Python analysis's (python/flow/value.ts): a flow of untrusted data,
 * a weak-randomness flow, data of unknown origin, a constant, known elements and keys, qualified
 * names. A JavaScript value may also be a function of this file, with the scope it closes over.
 */
export interface JV extends V {
  jfn?: JsNode;
  scope?: JEnv;
  /** an object or array reachable through another name too (assigned, passed, stored, returned) */
  esc?: boolean;
  /** the constant text a built string starts with */
  pre?: string;
}

/**
 * The names in scope: a function's own names over the scope it closes over. Branches fork the own
 * names only, so a call or a branch costs what the function binds, not what the module holds.
 */
export class JEnv extends Map<string, V> {
  constructor(readonly parent: JEnv | null = null, own?: Iterable<[string, V]>) {
    super(own ?? []);
  }

  override get(k: string): V | undefined {
    return super.get(k) ?? this.parent?.get(k);
  }

  override has(k: string): boolean {
    return super.has(k) || !!this.parent?.has(k);
  }

  ownHas(k: string): boolean {
    return super.has(k);
  }

  /** The scope a branch's copy was made from, which the code after the branch goes on in. */
  home?: JEnv;

  /** A copy for one branch: same enclosing scope, own names copied. */
  fork(): JEnv {
    const out = new JEnv(this.parent, this);
    out.home = this.home ?? this;
    return out;
  }

  /**
   * Where a function made here runs from when it is called later: a branch's copy is left behind
   * when the branch ends (`if (c) f = () => exec(cmd); cmd = v;`), so its names are joined with
   * those of the scope the code went on in, as that code left them.
   */
  later(): JEnv {
    return this.home && this.home.parent === this.parent ? joinJEnv(this, this.home) : this;
  }

  /** The scope of a function called from here. */
  child(): JEnv {
    return new JEnv(this);
  }
}

/** One sink reached: with a flow when untrusted data gets there unsanitised. */
export interface JsHit {
  cat: Cat;
  node: JsNode;
  flow?: Flow;
  undecided?: Flow;
  unconditional?: string;
}

export class JsFlowBudgetError extends Error {
  constructor() {
    super('flow budget exhausted');
  }
}

export const lineOf = (n: JsNode): number => n.loc?.start.line ?? 1;

export function source(what: string, n: JsNode): V {
  return { flow: { what, lines: [lineOf(n)], clean: new Set() } };
}

/** A function value keeps its identity through a join with itself (a branch that did not rebind it). */
export function joinJ(a: JV, b: JV): JV {
  const out: JV = join(a, b);
  if (a.jfn && a.jfn === b.jfn) {
    out.jfn = a.jfn;
    out.scope = a.scope;
  }
  return out;
}

/** Two forks of one scope after a branch: a name either side rebound holds what either gave it. */
export function joinJEnv(a: JEnv, b: JEnv): JEnv {
  const out = new JEnv(a.parent);
  out.home = a.home ?? a;
  for (const [k, v] of a) {
    const w = b.get(k);
    out.set(k, w ? joinJ(v, w) : v);
  }
  for (const [k, v] of b) {
    if (a.ownHas(k)) continue;
    const w = a.get(k);
    out.set(k, w ? joinJ(w, v) : v);
  }
  return out;
}

/** The value with every flow it carries made safe for `cats` (a guard or a sanitiser proved it). */
export function cleanFor(v: V, cats: Iterable<Cat>, depth = 0): V {
  const list = [...cats];
  const out: V = { ...v };
  if (v.flow) out.flow = cleaned(v.flow, list);
  if (v.unk) out.unk = cleaned(v.unk, list);
  if (depth < 4 && v.items) out.items = v.items.map((i) => cleanFor(i, list, depth + 1));
  if (depth < 4 && v.keys) out.keys = new Map([...v.keys].map(([k, i]) => [k, cleanFor(i, list, depth + 1)]));
  return out;
}

export function binop(op: string, a: Const, b: Const): Const | undefined {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) {
    const s = String(a) + String(b);
    return s.length < 4096 ? s : undefined;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return b === 0 ? undefined : a / b;
      case '%': return b === 0 ? undefined : a % b;
      case '**': return b >= 0 && b < 64 ? a ** b : undefined;
      case '<': return a < b;
      case '>': return a > b;
      case '<=': return a <= b;
      case '>=': return a >= b;
    }
  }
  switch (op) {
    case '===': return a === b;
    case '!==': return a !== b;
    // loose equality only between values of one type, where it is strict equality
    case '==': return typeof a === typeof b ? a === b : undefined;
    case '!=': return typeof a === typeof b ? a !== b : undefined;
  }
  return undefined;
}

export const known = (v: V): v is V & { known: true; k: Const } => !!v.known;
export { konst };
