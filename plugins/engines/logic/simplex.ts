import type { Formula } from './dsl.js';
import { conjuncts, literalAtom } from './shape.js';

/**
 * A SAT-only pre-solver for `linear` queries that are plain conjunctions over Int: the general
 * simplex of SMT solvers (Dutertre & de Moura: a slack variable per atom, bounds on the slacks,
 * Bland's rule) then depth-first branch and bound, within budgets. The search runs in floating
 * point, because it only proposes: a candidate is the rounding of an LP point, and it is accepted
 * only after every atom has been checked on it in exact integers (and the engine's evaluator
 * checks the model again). Rounding errors can only cost a missed model, never a wrong one; when no
 * model is found (infeasible, budget spent, NEQ, Real variables) z3 decides.
 */
const MAX_PIVOTS = 20_000;
const MAX_NODES = 2_000;
const EPS = 1e-9;
/**
 * A dense tableau is rows × columns doubles, copied at each branch: beyond this many entries (a
 * large system) z3 decides, and the pivot and node budgets shrink as the tableau grows, so work and
 * memory stay bounded whatever the query's size.
 */
const MAX_ENTRIES = 20_000;
/** live tableaux along one branch are bounded by nodes × entries */
const MAX_NODE_ENTRIES = 4_000_000;
const MAX_WORK = 4e7;
/** coefficients and bounds beyond this are left to z3: doubles stop being exact integers */
const MAX_MAGNITUDE = 2 ** 40;

interface Tableau {
  /** rows[r][j]: basic[r] = Σ_j rows[r][j] · x_j over the nonbasic j */
  rows: Float64Array[];
  basic: number[];
  /** row of a basic variable, −1 for nonbasic */
  rowOf: Int32Array;
  val: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
}

interface Budget {
  pivots: number;
  nodes: number;
}

/** An atom over Int in integer form: Σ c·x ⋈ bound, for the exact check of a candidate. */
interface IntAtom {
  coefs: Array<[number, bigint]>;
  op: 'LTE' | 'GTE' | 'EQ';
  bound: bigint;
}

function clone(t: Tableau): Tableau {
  return { rows: t.rows.map((r) => r.slice()), basic: [...t.basic], rowOf: t.rowOf.slice(), val: t.val.slice(), lo: t.lo.slice(), hi: t.hi.slice() };
}

function pivot(t: Tableau, r: number, e: number, v: number): void {
  const row = t.rows[r];
  const b = t.basic[r];
  const a = row[e];
  const theta = (v - t.val[b]) / a;
  t.val[b] = v;
  t.val[e] += theta;
  for (let k = 0; k < t.rows.length; k++) if (k !== r && t.rows[k][e] !== 0) t.val[t.basic[k]] += t.rows[k][e] * theta;
  // x_e = (x_b − Σ_{j≠e} a_j x_j) / a_e
  for (let j = 0; j < row.length; j++) row[j] = -row[j] / a;
  row[e] = 0;
  row[b] = 1 / a;
  for (let k = 0; k < t.rows.length; k++) {
    if (k === r) continue;
    const other = t.rows[k];
    const c = other[e];
    if (c === 0) continue;
    other[e] = 0;
    for (let j = 0; j < row.length; j++) if (row[j] !== 0) other[j] += c * row[j];
  }
  t.basic[r] = e;
  t.rowOf[e] = r;
  t.rowOf[b] = -1;
}

/** true: the LP relaxation is feasible and `val` satisfies every bound; false: infeasible; null: out of budget */
function feasible(t: Tableau, budget: Budget): boolean | null {
  for (;;) {
    let r = -1;
    let best = Infinity;
    for (let k = 0; k < t.rows.length; k++) {
      const b = t.basic[k];
      if ((t.val[b] < t.lo[b] - EPS || t.val[b] > t.hi[b] + EPS) && b < best) {
        best = b;
        r = k;
      }
    }
    if (r < 0) return true;
    if (--budget.pivots < 0) return null;
    const b = t.basic[r];
    const raise = t.val[b] < t.lo[b] - EPS;
    const row = t.rows[r];
    let pick = -1;
    for (let j = 0; j < row.length; j++) {
      const a = row[j];
      if (Math.abs(a) < EPS || t.rowOf[j] >= 0) continue;
      const canUp = t.val[j] < t.hi[j] - EPS;
      const canDown = t.val[j] > t.lo[j] + EPS;
      if (raise ? (a > 0 ? canUp : canDown) : a > 0 ? canDown : canUp) {
        pick = j;
        break;
      }
    }
    if (pick < 0) return false;
    pivot(t, r, pick, raise ? t.lo[b] : t.hi[b]);
  }
}

/** Moves a nonbasic variable to a new bound, or tightens a basic one (the next check repairs it). */
function bound(t: Tableau, x: number, v: number, upper: boolean): void {
  if (upper) t.hi[x] = Math.min(t.hi[x], v);
  else t.lo[x] = Math.max(t.lo[x], v);
  if (t.rowOf[x] >= 0) return;
  const target = upper ? Math.min(t.val[x], v) : Math.max(t.val[x], v);
  const delta = target - t.val[x];
  if (delta === 0) return;
  for (let k = 0; k < t.rows.length; k++) if (t.rows[k][x] !== 0) t.val[t.basic[k]] += t.rows[k][x] * delta;
  t.val[x] = target;
}

function satisfies(atoms: IntAtom[], xs: bigint[]): boolean {
  return atoms.every((a) => {
    let s = 0n;
    for (const [i, c] of a.coefs) s += c * xs[i];
    return a.op === 'LTE' ? s <= a.bound : a.op === 'GTE' ? s >= a.bound : s === a.bound;
  });
}

function search(t: Tableau, n: number, atoms: IntAtom[], budget: Budget): bigint[] | null {
  if (--budget.nodes < 0) return null;
  if (feasible(t, budget) !== true) return null;
  // the LP point rounded is often already a model: cheap to try at every node
  if (!t.val.every(Number.isFinite)) return null;
  const rounded = Array.from(t.val.subarray(0, n), (v) => BigInt(Math.round(v)));
  if (satisfies(atoms, rounded)) return rounded;
  let frac = -1;
  for (let x = 0; x < n; x++) {
    if (Math.abs(t.val[x] - Math.round(t.val[x])) > 1e-6) {
      frac = x;
      break;
    }
  }
  if (frac < 0) return null; // integral within tolerance but not a model: rounding lied, give up here
  const v = t.val[frac];
  const down = clone(t);
  bound(down, frac, Math.floor(v), true);
  const left = search(down, n, atoms, budget);
  if (left) return left;
  bound(t, frac, Math.ceil(v), false);
  return search(t, n, atoms, budget);
}

export function solveLinearConjunction(f: Formula): Record<string, string> | null {
  if (f.vars.some((v) => v.sort !== 'Int')) return null;
  const index = new Map(f.vars.map((v, i) => [v.name, i]));
  const n = f.vars.length;
  const atoms: IntAtom[] = [];
  for (const part of conjuncts(f.body)) {
    const a = literalAtom(part);
    if (!a || a.op === 'NEQ') return null;
    // scale to integer coefficients: Σ c·x + k ⋈ 0, then Σ c·x ⋈' −k with strict bounds tightened by one
    let l = 1n;
    const g = (x: bigint, y: bigint): bigint => (y === 0n ? x : g(y, x % y));
    for (const c of [...a.form.coefs.values(), a.form.constant]) l = (l * c.d) / g(l, c.d);
    const coefs: Array<[number, bigint]> = [...a.form.coefs].map(([name, c]) => [index.get(name) as number, (c.n * l) / c.d]);
    const k = (a.form.constant.n * l) / a.form.constant.d;
    const op = a.op === 'LT' || a.op === 'LTE' ? 'LTE' : a.op === 'EQ' ? 'EQ' : 'GTE';
    const bound = -k + (a.op === 'LT' ? -1n : a.op === 'GT' ? 1n : 0n);
    atoms.push({ coefs, op, bound });
  }
  const m = atoms.length;
  const cols = n + m;
  if (m * cols > MAX_ENTRIES) return null;
  const t: Tableau = {
    rows: [],
    basic: [],
    rowOf: new Int32Array(cols).fill(-1),
    val: new Float64Array(cols),
    lo: new Float64Array(cols).fill(-Infinity),
    hi: new Float64Array(cols).fill(Infinity),
  };
  for (const [i, a] of atoms.entries()) {
    const slack = n + i;
    const row = new Float64Array(cols);
    for (const [x, c] of a.coefs) {
      if (c > BigInt(MAX_MAGNITUDE) || -c > BigInt(MAX_MAGNITUDE)) return null;
      row[x] = Number(c);
    }
    if (a.bound > BigInt(MAX_MAGNITUDE) || -a.bound > BigInt(MAX_MAGNITUDE)) return null;
    if (!a.coefs.length) {
      // a constant atom: decided here only when true; a false one is z3's to call UNSAT
      if (!satisfies([a], [])) return null;
      continue;
    }
    const b = Number(a.bound);
    if (a.op !== 'GTE') t.hi[slack] = b;
    if (a.op !== 'LTE') t.lo[slack] = b;
    t.rowOf[slack] = t.rows.length;
    t.rows.push(row);
    t.basic.push(slack);
  }
  const pivots = Math.min(MAX_PIVOTS, Math.floor(MAX_WORK / Math.max(1, m * cols)));
  const nodes = Math.min(MAX_NODES, Math.floor(MAX_NODE_ENTRIES / Math.max(1, m * cols)));
  const values = search(t, n, atoms, { pivots, nodes });
  if (!values) return null;
  const model: Record<string, string> = {};
  f.vars.forEach((v, i) => (model[v.name] = values[i].toString()));
  return model;
}
