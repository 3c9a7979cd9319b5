import type { Formula, Term } from './dsl.js';
import { type Q, add, literal, mul, q } from './evaluate.js';

/**
 * The shape of a query decides how it is solved (strategy.ts). Shapes, from the most to the least
 * specific; the first that fits wins:
 * - `quantified`: any FORALL/EXISTS;
 * - `boolean`: no arithmetic atom at all;
 * - `bounds`: a conjunction of atoms over one variable each (`x > 5`, `x + 4 <= 19`, `2x = 6`):
 *   decided by interval propagation, no SMT search (intervals.ts);
 * - `finite`: Int atoms over one variable each under any Boolean structure (0/1 CNF, pigeonhole);
 * - `difference`: Int atoms of the form `x - y ⋈ k` or `x ⋈ k` under any Boolean structure
 *   (chains, scheduling);
 * - `linear`: every atom linear;
 * - `nonlinear`: anything else (products of variables, DIV/MOD/POW of variables, numeric ITE).
 */
export type Shape = 'quantified' | 'boolean' | 'bounds' | 'finite' | 'difference' | 'linear' | 'nonlinear';

/** Σ coef·var + constant, exactly */
export interface Linear {
  coefs: Map<string, Q>;
  constant: Q;
}

const COMPARE = new Set(['GT', 'LT', 'GTE', 'LTE', 'EQ', 'NEQ']);
const CONNECTIVES = new Set(['AND', 'OR', 'NOT', 'IMPLIES', 'IFF', 'XOR', 'ITE']);

function scale(l: Linear, k: Q): Linear {
  const coefs = new Map<string, Q>();
  for (const [v, c] of l.coefs) if (k.n !== 0n) coefs.set(v, mul(c, k));
  return { coefs, constant: mul(l.constant, k) };
}

function sum(a: Linear, b: Linear): Linear {
  const coefs = new Map(a.coefs);
  for (const [v, c] of b.coefs) {
    const s = coefs.has(v) ? add(coefs.get(v) as Q, c) : c;
    if (s.n === 0n) coefs.delete(v);
    else coefs.set(v, s);
  }
  return { coefs, constant: add(a.constant, b.constant) };
}

/** The linear form of a numeric term, or null when it is not linear. */
export function linear(t: Term): Linear | null {
  if (t.kind === 'int' || t.kind === 'real') return { coefs: new Map(), constant: literal(t.value) };
  if (t.kind === 'var') return t.bound ? null : { coefs: new Map([[t.name, q(1n)]]), constant: q(0n) };
  if (t.kind !== 'app') return null;
  const parts = t.args.map(linear);
  if (parts.some((p) => p === null)) return null;
  const ps = parts as Linear[];
  switch (t.op) {
    case 'PLUS':
      return ps.reduce(sum);
    case 'MINUS':
      return ps.length === 1 ? scale(ps[0], q(-1n)) : sum(ps[0], scale(ps[1], q(-1n)));
    case 'MULT': {
      // linear when at most one factor has variables
      let acc: Linear = { coefs: new Map(), constant: q(1n) };
      for (const p of ps) {
        if (acc.coefs.size && p.coefs.size) return null;
        acc = acc.coefs.size ? scale(acc, p.constant) : p.coefs.size ? scale(p, acc.constant) : { coefs: new Map(), constant: mul(acc.constant, p.constant) };
      }
      return acc;
    }
  }
  return null; // DIV, MOD, POW, numeric ITE: left to the solver
}

/** An arithmetic atom as `lhs - rhs ⋈ 0`. */
export interface Atom {
  op: 'GT' | 'LT' | 'GTE' | 'LTE' | 'EQ' | 'NEQ';
  form: Linear;
}

/**
 * Shape detection and every pre-solver read the same atoms; each parsed term's linear form is
 * computed once (keyed by the term object, so nothing outlives the query that parsed it).
 */
const atoms = new WeakMap<Term, Atom | null>();

export function atomOf(t: Term): Atom | null {
  if (t.kind !== 'app' || !COMPARE.has(t.op) || t.args[0].sort === 'Bool') return null;
  let a = atoms.get(t);
  if (a === undefined) {
    a = formOf(t);
    atoms.set(t, a);
  }
  return a;
}

function formOf(t: Term & { kind: 'app' }): Atom | null {
  const l = linear(t.args[0]);
  const r = linear(t.args[1]);
  if (!l || !r) return null;
  return { op: t.op as Atom['op'], form: sum(l, scale(r, q(-1n))) };
}

const NEGATED = { GT: 'LTE', LT: 'GTE', GTE: 'LT', LTE: 'GT', EQ: 'NEQ', NEQ: 'EQ' } as const;

/** An atom or a negated atom (`(NOT (GT x 3))` is `x ≤ 3`), as a conjunct of a bounds query. */
export function literalAtom(t: Term): Atom | null {
  if (t.kind === 'app' && t.op === 'NOT') {
    const a = atomOf(t.args[0]);
    return a ? { op: NEGATED[a.op], form: a.form } : null;
  }
  return atomOf(t);
}

/** The conjuncts of a formula (nested ANDs flattened). */
export function conjuncts(t: Term): Term[] {
  const out: Term[] = [];
  const stack = [t];
  while (stack.length) {
    const x = stack.pop() as Term;
    if (x.kind === 'app' && x.op === 'AND') for (let i = x.args.length - 1; i >= 0; i--) stack.push(x.args[i]);
    else out.push(x);
  }
  return out;
}

interface Census {
  quantified: boolean;
  atoms: number;
  nonlinear: boolean;
  /** every arithmetic atom has one variable */
  single: boolean;
  /** every arithmetic atom is x ⋈ k or x − y ⋈ k over Int */
  difference: boolean;
}

function census(f: Formula): Census {
  const c: Census = { quantified: false, atoms: 0, nonlinear: false, single: true, difference: true };
  const intVar = new Map(f.vars.map((v) => [v.name, v.sort === 'Int']));
  const stack: Term[] = [f.body];
  while (stack.length) {
    const t = stack.pop() as Term;
    if (t.kind !== 'app') continue;
    if (t.binders) c.quantified = true;
    if (COMPARE.has(t.op) && t.args[0].sort !== 'Bool') {
      c.atoms++;
      const a = atomOf(t);
      if (!a) {
        c.nonlinear = true;
        c.single = c.difference = false;
        continue;
      }
      const vs = [...a.form.coefs];
      if (vs.length > 1) c.single = false;
      const ints = vs.every(([v]) => intVar.get(v) === true);
      const unit = (x: Q): boolean => x.d === 1n && (x.n === 1n || x.n === -1n);
      const diff = vs.length <= 1 || (vs.length === 2 && unit(vs[0][1]) && unit(vs[1][1]) && vs[0][1].n === -vs[1][1].n);
      if (!ints || !diff || a.form.constant.d !== 1n) c.difference = false;
      if (!ints) c.single = false;
      continue;
    }
    if (CONNECTIVES.has(t.op) || COMPARE.has(t.op)) for (const a of t.args) stack.push(a);
    else {
      // arithmetic outside a comparison (a numeric ITE branch, …): the solver's business
      c.nonlinear = true;
      c.single = c.difference = false;
    }
  }
  return c;
}

/** Largest domain a `finite` variable may have: bit-blasting pays for small ranges only. */
const MAX_FINITE_RANGE = 64n;

/**
 * Every Int variable ranges over a small known set: bounded on both sides by top-level conjuncts
 * (`0 ≤ p ≤ 1`), or compared only by EQ/NEQ (pigeonhole's `h = 1`), where only the named constants
 * and "something else" matter. Otherwise bit-blasting falls outside its fragment.
 */
function finiteDomains(f: Formula, parts: Term[]): boolean {
  const lo = new Map<string, bigint>();
  const hi = new Map<string, bigint>();
  for (const p of parts) {
    const a = atomOf(p);
    if (!a || a.form.coefs.size !== 1 || a.op === 'NEQ' || a.op === 'EQ') continue;
    const [[v, c]] = [...a.form.coefs];
    if (c.d !== 1n || (c.n !== 1n && c.n !== -1n) || a.form.constant.d !== 1n) continue;
    // c·v + k ⋈ 0 with c = ±1
    const k = a.form.constant.n;
    const at = c.n === 1n ? -k : k;
    const upper = (a.op === 'LT' || a.op === 'LTE') === (c.n === 1n);
    const bound = a.op === 'LT' ? at - 1n : a.op === 'GT' ? at + 1n : at;
    if (upper) hi.set(v, hi.has(v) ? (bound < (hi.get(v) as bigint) ? bound : (hi.get(v) as bigint)) : bound);
    else lo.set(v, lo.has(v) ? (bound > (lo.get(v) as bigint) ? bound : (lo.get(v) as bigint)) : bound);
  }
  const onlyEq = new Set(f.vars.map((v) => v.name));
  const stack: Term[] = [f.body];
  while (stack.length) {
    const t = stack.pop() as Term;
    if (t.kind !== 'app') continue;
    const a = COMPARE.has(t.op) && t.args[0].sort !== 'Bool' ? atomOf(t) : null;
    if (a && a.op !== 'EQ' && a.op !== 'NEQ') for (const v of a.form.coefs.keys()) onlyEq.delete(v);
    if (!a) for (const x of t.args) stack.push(x);
  }
  return f.vars.every((v) => {
    if (v.sort !== 'Int' || onlyEq.has(v.name)) return v.sort !== 'Real';
    const l = lo.get(v.name);
    const h = hi.get(v.name);
    return l !== undefined && h !== undefined && h - l <= MAX_FINITE_RANGE;
  });
}

export function classify(f: Formula): Shape {
  const c = census(f);
  if (c.quantified) return 'quantified';
  if (c.atoms === 0) return 'boolean';
  if (c.nonlinear) return 'nonlinear';
  const parts = conjuncts(f.body);
  const boundsOnly = parts.every((p) => {
    const a = literalAtom(p);
    return a !== null && a.op !== 'NEQ' && a.form.coefs.size === 1;
  });
  if (boundsOnly) return 'bounds';
  if (c.single && finiteDomains(f, parts)) return 'finite';
  if (c.difference) return 'difference';
  return 'linear';
}
