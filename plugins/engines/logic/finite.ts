import type { Formula, Term } from './dsl.js';
import { ceil, cmp, div, floor, q } from './evaluate.js';
import { type Atom, atomOf, conjuncts } from './shape.js';

/**
 * A SAT-only pre-solver for `finite` queries (every arithmetic atom over one Int variable, each
 * variable ranging over a small known set): depth-first search over the domains with three-valued
 * evaluation, so a branch stops as soon as the formula is false whatever the unassigned variables
 * are. Planted CNF over 0/1 variables needs a few dozen nodes. It only proposes a model, which the
 * engine's evaluator re-checks; when the budget runs out (pigeonhole, which is UNSAT) z3 decides.
 */
const MAX_NODES = 500;

type V = boolean | undefined;
type Value = bigint | boolean;

/** A single-variable atom: the variable, and its truth for a given value. */
interface Test {
  v: string;
  at: (x: bigint) => boolean;
}

function test(a: Atom): Test | null {
  const vs = [...a.form.coefs];
  if (vs.length !== 1) return null;
  const [[v, c]] = vs;
  return {
    v,
    at: (x) => {
      const s = cmp(q(c.n * x * a.form.constant.d + a.form.constant.n * c.d, c.d * a.form.constant.d), q(0n));
      return a.op === 'LT' ? s < 0 : a.op === 'LTE' ? s <= 0 : a.op === 'GT' ? s > 0 : a.op === 'GTE' ? s >= 0 : a.op === 'EQ' ? s === 0 : s !== 0;
    },
  };
}

/**
 * Each Int variable's candidate values: its range when top-level conjuncts bound it on both sides
 * within `MAX_RANGE`, otherwise the values its atoms single out (and the integers next to them) plus
 * one value unlike any of them: an atom over one variable changes truth only at those points.
 */
const MAX_RANGE = 64n;

function domains(f: Formula, tests: Map<Term, Test>): Map<string, Value[]> | null {
  const lo = new Map<string, bigint>();
  const hi = new Map<string, bigint>();
  for (const p of conjuncts(f.body)) {
    const a = atomOf(p);
    if (!a || a.form.coefs.size !== 1 || a.op === 'NEQ') continue;
    const [[v, c]] = [...a.form.coefs];
    const at = div(q(-a.form.constant.n, a.form.constant.d), c);
    const op = c.n > 0n ? a.op : ({ GT: 'LT', LT: 'GT', GTE: 'LTE', LTE: 'GTE', EQ: 'EQ' } as const)[a.op];
    if (op === 'GT' || op === 'GTE' || op === 'EQ') {
      const b = op === 'GT' ? floor(at) + 1n : ceil(at);
      if (!lo.has(v) || b > (lo.get(v) as bigint)) lo.set(v, b);
    }
    if (op === 'LT' || op === 'LTE' || op === 'EQ') {
      const b = op === 'LT' ? ceil(at) - 1n : floor(at);
      if (!hi.has(v) || b < (hi.get(v) as bigint)) hi.set(v, b);
    }
  }
  const points = new Map<string, Set<bigint>>();
  for (const [t, x] of tests) {
    const a = atomOf(t) as Atom;
    const [[, c]] = [...a.form.coefs];
    const at = div(q(-a.form.constant.n, a.form.constant.d), c);
    const set = points.get(x.v) ?? new Set<bigint>();
    for (const p of [floor(at) - 1n, floor(at), ceil(at), ceil(at) + 1n]) set.add(p);
    points.set(x.v, set);
  }
  const out = new Map<string, Value[]>();
  for (const v of f.vars) {
    if (v.sort === 'Bool') out.set(v.name, [false, true]);
    else if (v.sort !== 'Int') return null;
    else if (lo.has(v.name) && hi.has(v.name)) {
      const [l, h] = [lo.get(v.name) as bigint, hi.get(v.name) as bigint];
      if (h - l > MAX_RANGE) return null;
      const vals: bigint[] = [];
      for (let x = l; x <= h; x++) vals.push(x);
      out.set(v.name, vals);
    } else {
      const vals = [...(points.get(v.name) ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      out.set(v.name, [...vals, (vals.length ? vals[vals.length - 1] : 0n) + 1n]);
    }
  }
  return out;
}

function eval3(t: Term, env: Map<string, Value>, tests: Map<Term, Test>): V {
  if (t.kind === 'bool') return t.value;
  if (t.kind === 'var') return env.get(t.name) as boolean | undefined;
  if (t.kind !== 'app') return undefined;
  const x = tests.get(t);
  if (x) {
    const val = env.get(x.v);
    return val === undefined ? undefined : x.at(val as bigint);
  }
  const a = t.args;
  const e = (i: number): V => eval3(a[i], env, tests);
  switch (t.op) {
    case 'AND': {
      let all: V = true;
      for (let i = 0; i < a.length; i++) {
        const r = e(i);
        if (r === false) return false;
        if (r === undefined) all = undefined;
      }
      return all;
    }
    case 'OR': {
      let any: V = false;
      for (let i = 0; i < a.length; i++) {
        const r = e(i);
        if (r === true) return true;
        if (r === undefined) any = undefined;
      }
      return any;
    }
    case 'NOT': {
      const r = e(0);
      return r === undefined ? undefined : !r;
    }
    case 'IMPLIES': {
      const [l, r] = [e(0), e(1)];
      return l === false || r === true ? true : l === true && r === false ? false : undefined;
    }
    case 'IFF':
    case 'EQ':
    case 'NEQ':
    case 'XOR': {
      // Boolean arguments only here: numeric EQ/NEQ are single-variable tests
      const vs = a.map((_, i) => e(i));
      if (vs.some((v) => v === undefined)) return undefined;
      if (t.op === 'XOR') return vs.reduce((acc, v) => acc !== v, false as boolean);
      return (vs[0] === vs[1]) === (t.op !== 'NEQ');
    }
    case 'ITE': {
      const c = e(0);
      return c === undefined ? (e(1) === e(2) ? e(1) : undefined) : c ? e(1) : e(2);
    }
  }
  return undefined;
}

function varsOf(t: Term, tests: Map<Term, Test>, out = new Set<string>()): Set<string> {
  const x = tests.get(t);
  if (x) out.add(x.v);
  else if (t.kind === 'var') out.add(t.name);
  else if (t.kind === 'app') for (const a of t.args) varsOf(a, tests, out);
  return out;
}

export function solveFinite(f: Formula): Record<string, string> | null {
  const tests = new Map<Term, Test>();
  const stack: Term[] = [f.body];
  while (stack.length) {
    const t = stack.pop() as Term;
    if (t.kind !== 'app') continue;
    if (t.binders) return null;
    const a = ['GT', 'LT', 'GTE', 'LTE', 'EQ', 'NEQ'].includes(t.op) && t.args[0].sort !== 'Bool' ? atomOf(t) : null;
    if (a) {
      const x = test(a);
      if (!x) return null;
      tests.set(t, x);
    } else if (['AND', 'OR', 'NOT', 'IMPLIES', 'IFF', 'XOR', 'ITE', 'EQ', 'NEQ'].includes(t.op) && t.sort === 'Bool') stack.push(...t.args);
    else return null;
  }
  const doms = domains(f, tests);
  if (!doms) return null;
  // each conjunct is evaluated when one of its variables is assigned, so a branch costs only the
  // conjuncts it touches; a conjunct without variables is evaluated once, up front
  const parts = conjuncts(f.body);
  const touching = new Map<string, Term[]>();
  const env = new Map<string, Value>();
  for (const p of parts) {
    const vs = varsOf(p, tests);
    if (!vs.size && eval3(p, env, tests) !== true) return null;
    for (const v of vs) touching.set(v, [...(touching.get(v) ?? []), p]);
  }
  // the most constrained variables first
  const order = f.vars.map((v) => v.name).sort((a, b) => (touching.get(b)?.length ?? 0) - (touching.get(a)?.length ?? 0));
  let nodes = MAX_NODES;
  const dfs = (i: number): boolean => {
    if (i === order.length) return true;
    for (const val of doms.get(order[i]) as Value[]) {
      if (--nodes < 0) return false;
      env.set(order[i], val);
      if ((touching.get(order[i]) ?? []).every((p) => eval3(p, env, tests) !== false) && dfs(i + 1)) return true;
      if (nodes < 0) return false;
    }
    env.delete(order[i]);
    return false;
  };
  if (!dfs(0)) return null;
  const model: Record<string, string> = {};
  for (const v of f.vars) {
    const val = env.get(v.name) ?? (doms.get(v.name) as Value[])[0];
    model[v.name] = String(val);
  }
  return model;
}
