import type { Formula } from './dsl.js';
import { type Q, add, ceil, cmp, div, floor, mul, q, sub } from './evaluate.js';
import { conjuncts, literalAtom } from './shape.js';

/**
 * A SAT-only pre-solver for `linear` queries that are plain conjunctions over Int: the general
 * simplex of SMT solvers (Dutertre & de Moura: a slack variable per atom, bounds on the slacks,
 * Bland's rule) in exact rationals, then branch and bound on a fractional variable, within small
 * budgets. It answers only "here is a model", which the engine's own evaluator re-checks; when it
 * finds none (infeasible, budget spent, NEQ, Real variables) z3 decides, so UNSAT stays z3's word.
 */
const MAX_PIVOTS = 800;
const MAX_NODES = 24;

type Row = Map<number, Q>;

interface State {
  rows: Map<number, Row>;
  val: Q[];
  lo: Array<Q | null>;
  hi: Array<Q | null>;
}

const ZERO = q(0n);

function clone(s: State): State {
  const rows = new Map<number, Row>();
  for (const [b, r] of s.rows) rows.set(b, new Map(r));
  return { rows, val: [...s.val], lo: [...s.lo], hi: [...s.hi] };
}

function update(s: State, n: number, v: Q): void {
  const delta = sub(v, s.val[n]);
  for (const [b, r] of s.rows) {
    const a = r.get(n);
    if (a) s.val[b] = add(s.val[b], mul(a, delta));
  }
  s.val[n] = v;
}

function pivotAndUpdate(s: State, b: number, n: number, v: Q): void {
  const row = s.rows.get(b) as Row;
  const abn = row.get(n) as Q;
  const theta = div(sub(v, s.val[b]), abn);
  s.val[b] = v;
  s.val[n] = add(s.val[n], theta);
  for (const [r, rr] of s.rows) {
    if (r === b) continue;
    const a = rr.get(n);
    if (a) s.val[r] = add(s.val[r], mul(a, theta));
  }
  // x_n = (b − Σ_{j≠n} a_bj x_j) / a_bn
  const nrow: Row = new Map([[b, div(q(1n), abn)]]);
  for (const [j, a] of row) if (j !== n) nrow.set(j, div(q(-a.n, a.d), abn));
  s.rows.delete(b);
  for (const rr of s.rows.values()) {
    const a = rr.get(n);
    if (!a) continue;
    rr.delete(n);
    for (const [j, c] of nrow) {
      const sum = add(rr.get(j) ?? ZERO, mul(a, c));
      if (sum.n === 0n) rr.delete(j);
      else rr.set(j, sum);
    }
  }
  s.rows.set(n, nrow);
}

/** true: the bounds are feasible (over the rationals) and `val` satisfies them; false: infeasible or out of budget */
function check(s: State, budget: { pivots: number }): boolean | null {
  for (;;) {
    let b = -1;
    for (const r of [...s.rows.keys()].sort((x, y) => x - y)) {
      const lo = s.lo[r];
      const hi = s.hi[r];
      if ((lo && cmp(s.val[r], lo) < 0) || (hi && cmp(s.val[r], hi) > 0)) {
        b = r;
        break;
      }
    }
    if (b < 0) return true;
    if (--budget.pivots < 0) return null;
    const row = s.rows.get(b) as Row;
    const raise = !!s.lo[b] && cmp(s.val[b], s.lo[b] as Q) < 0;
    let pick = -1;
    for (const n of [...row.keys()].sort((x, y) => x - y)) {
      const a = row.get(n) as Q;
      const canUp = !s.hi[n] || cmp(s.val[n], s.hi[n] as Q) < 0;
      const canDown = !s.lo[n] || cmp(s.val[n], s.lo[n] as Q) > 0;
      if (raise ? (a.n > 0n ? canUp : canDown) : a.n > 0n ? canDown : canUp) {
        pick = n;
        break;
      }
    }
    if (pick < 0) return false;
    pivotAndUpdate(s, b, pick, (raise ? s.lo[b] : s.hi[b]) as Q);
  }
}

function setBound(s: State, x: number, v: Q, upper: boolean): void {
  if (upper) s.hi[x] = s.hi[x] && cmp(s.hi[x] as Q, v) < 0 ? s.hi[x] : v;
  else s.lo[x] = s.lo[x] && cmp(s.lo[x] as Q, v) > 0 ? s.lo[x] : v;
  if (!s.rows.has(x)) {
    if (upper && cmp(s.val[x], s.hi[x] as Q) > 0) update(s, x, s.hi[x] as Q);
    if (!upper && cmp(s.val[x], s.lo[x] as Q) < 0) update(s, x, s.lo[x] as Q);
  }
}

function branch(s: State, nvars: number, budget: { pivots: number; nodes: number }): Q[] | null {
  if (--budget.nodes < 0) return null;
  const ok = check(s, budget);
  if (ok !== true) return null;
  let frac = -1;
  for (let x = 0; x < nvars; x++) {
    if (s.val[x].d !== 1n) {
      frac = x;
      break;
    }
  }
  if (frac < 0) return s.val.slice(0, nvars);
  const v = s.val[frac];
  const down = clone(s);
  setBound(down, frac, q(floor(v)), true);
  const left = branch(down, nvars, budget);
  if (left) return left;
  const up = clone(s);
  setBound(up, frac, q(ceil(v)), false);
  return branch(up, nvars, budget);
}

export function solveLinearConjunction(f: Formula): Record<string, string> | null {
  if (f.vars.some((v) => v.sort !== 'Int')) return null;
  const index = new Map(f.vars.map((v, i) => [v.name, i]));
  const n = f.vars.length;
  const s: State = { rows: new Map(), val: [], lo: [], hi: [] };
  for (let i = 0; i < n; i++) {
    s.val.push(ZERO);
    s.lo.push(null);
    s.hi.push(null);
  }
  for (const part of conjuncts(f.body)) {
    const a = literalAtom(part);
    if (!a || a.op === 'NEQ') return null;
    // scale to integer coefficients: Σ c·x + k ⋈ 0
    let l = 1n;
    const g = (x: bigint, y: bigint): bigint => (y === 0n ? x : g(y, x % y));
    for (const c of [...a.form.coefs.values(), a.form.constant]) l = (l * c.d) / g(l, c.d);
    const row: Row = new Map();
    for (const [name, c] of a.form.coefs) row.set(index.get(name) as number, q((c.n * l) / c.d));
    const k = (a.form.constant.n * l) / a.form.constant.d;
    const slack = s.val.length;
    s.val.push(ZERO);
    s.lo.push(null);
    s.hi.push(null);
    if (row.size === 0) {
      // constant atom: decided here only when true; a false one is z3's to call UNSAT
      const holds = a.op === 'LT' ? k < 0n : a.op === 'LTE' ? k <= 0n : a.op === 'GT' ? k > 0n : a.op === 'GTE' ? k >= 0n : k === 0n;
      if (!holds) return null;
      continue;
    }
    s.rows.set(slack, row);
    // slack = Σ c·x ⋈ −k  (Int: strict bounds tightened by one)
    if (a.op === 'LT' || a.op === 'LTE' || a.op === 'EQ') s.hi[slack] = q(-k - (a.op === 'LT' ? 1n : 0n));
    if (a.op === 'GT' || a.op === 'GTE' || a.op === 'EQ') s.lo[slack] = q(-k + (a.op === 'GT' ? 1n : 0n));
  }
  const values = branch(s, n, { pivots: MAX_PIVOTS, nodes: MAX_NODES });
  if (!values) return null;
  const model: Record<string, string> = {};
  f.vars.forEach((v, i) => (model[v.name] = values[i].n.toString()));
  return model;
}
