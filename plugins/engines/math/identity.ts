import { K, Q } from './field.js';
import { exact, EvalError, Undecided, type Domain } from './exact.js';
import { evalDecChecked, NeedComplex, settled } from './approx.js';
import { evalComplexBall } from './complex.js';
import { Builder, degrees, evalIR, irSize, type IR } from './ir.js';
import { sameTree, variables, type Ast } from './ast.js';

export const MAX_GRID_POINTS = 20_000;
/** grid points × IR nodes, and the sum of the degree bounds (which sets the size of the numbers) */
const MAX_GRID_WORK = 1_000_000;
const MAX_DEGREE_SUM = 600;
/** the same for double-precision complex evaluation (error ~1e-15 for the expression sizes admitted) */
const FLOAT_MARGIN = 1e-8;

export type Outcome =
  | { kind: 'holds'; method: 'exact_evaluation' | 'exact_grid' | 'identical_sides'; atoms: string[]; degree_bounds: number[]; grid_points: number }
  | { kind: 'refuted'; method: 'exact_evaluation' | 'exact_grid' | 'exact_point' | 'numeric_point'; counterexample: Record<string, unknown> }
  | { kind: 'numeric_only'; points: number; reason: string }
  | { kind: 'unknown'; reason: string };

const SAMPLE: readonly Q[] = [Q.of(2n), Q.of(-1n), Q.of(1n, 2n), Q.of(3n), Q.of(-2n), Q.of(5n, 3n), Q.of(-1n, 3n), Q.of(7n)];

/** grid value m of atom j in attempt s; never 0 (atoms may sit in denominators: 1/x, e^{-ix}) */
function gridValue(s: number, j: number, m: number, n: number): K {
  let q: Q;
  if (s === 0) q = Q.of(BigInt(m + 2));
  else if (s === 1) q = Q.of(BigInt((m + 2) * (n + 2) + j + 1), BigInt(n + 2));
  else if (s === 2) q = Q.of(BigInt(-((m + 2) * (2 * n + 3) + j + 1)), BigInt(2 * n + 3));
  else q = Q.of(BigInt((m + 3) * 7 + 1), BigInt(7 * (j + 2)));
  return K.fromQ(q);
}

/**
 * Decides left = right. The formal difference N/D is a rational function whose numerator has degree
 * ≤ d_j in atom j (degrees()); if it vanishes on a grid of Π(d_j + 1) points where every division in
 * the evaluation is defined, N is the zero polynomial (a polynomial of degree ≤ d_j in each variable
 * that vanishes on S_1×…×S_m with |S_j| > d_j is zero), so the identity holds — an exact proof in
 * rational arithmetic. One non-zero point refutes it when the atoms are algebraically independent.
 */
export function decideEquation(left: Ast, right: Ast, domain: Domain): Outcome {
  const b = new Builder(domain);
  const diff: IR = { t: 'sub', a: b.build(left), b: b.build(right) };
  const atoms = b.atoms.list;
  // identical trees denote the same function (constant parts were checked for definedness while building)
  if (sameTree(left, right)) return { kind: 'holds', method: 'identical_sides', atoms: [], degree_bounds: [], grid_points: 0 };
  const n = atoms.length;
  const deg = degrees(diff, n).num;
  const points = deg.reduce((p, d) => p * (d + 1), 1);
  const size = irSize(diff);
  const method = n === 0 ? 'exact_evaluation' : 'exact_grid';
  const degreeSum = deg.reduce((x, y) => x + y, 0);
  if (points <= MAX_GRID_POINTS && points * size <= MAX_GRID_WORK && degreeSum <= MAX_DEGREE_SUM) {
    for (let s = 0; s < 4; s++) {
      const r = grid(diff, deg, n, s);
      if (r === 'undefined') continue;
      if (r === 'zero') {
        return { kind: 'holds', method, atoms: atoms.map((a) => a.label), degree_bounds: deg, grid_points: points };
      }
      if (b.atoms.independent()) {
        const point: Record<string, string> = {};
        r.forEach((v, j) => (point[atoms[j].label] = v.toString()));
        const value = evalIR(diff, r);
        return { kind: 'refuted', method, counterexample: { point, difference: value.toString() } };
      }
      break; // a non-zero formal difference over dependent atoms proves nothing: sample the real functions
    }
  }
  return sample(left, right, domain);
}

/** 'zero' when the difference vanishes on the whole grid, the first non-zero point, or 'undefined' */
function grid(diff: IR, deg: number[], n: number, s: number): 'zero' | 'undefined' | K[] {
  const values = deg.map((d, j) => Array.from({ length: d + 1 }, (_, m) => gridValue(s, j, m, n)));
  const idx = new Array(n).fill(0);
  for (;;) {
    const point = idx.map((m, j) => values[j][m]);
    try {
      if (!evalIR(diff, point).isZero()) return point;
    } catch (err) {
      if (err instanceof EvalError) return 'undefined';
      throw err;
    }
    let j = 0;
    while (j < n && ++idx[j] > deg[j]) idx[j++] = 0;
    if (j === n) return 'zero';
  }
}

type Numeric = { left: string; right: string; precision: 'decimal_50_90' | 'float'; differs: boolean };

/**
 * Numeric comparison at one point. Real values: 50 and 90 digits; they differ only when the 50-digit
 * difference exceeds 1e-30 of the largest intermediate magnitude and the 90-digit run confirms it
 * (cancellation of large terms cannot fake a difference). Complex values: doubles, 1e-8 of the scale.
 */
function compareAt(left: Ast, right: Ast, point: Map<string, Q>, domain: Domain): Numeric {
  try {
    const l = evalDecChecked(left, point);
    const r = evalDecChecked(right, point);
    const differs = settled(l.v50.minus(r.v50), l.v90.minus(r.v90), l.scale.gt(r.scale) ? l.scale : r.scale);
    return { left: l.v50.toSignificantDigits(20).toString(), right: r.v50.toSignificantDigits(20).toString(), precision: 'decimal_50_90', differs };
  } catch (err) {
    if (!(err instanceof NeedComplex)) throw err;
    if (domain === 'real') throw new EvalError('domain', 'The value is not a real number.');
  }
  const l = evalComplexBall(left, point);
  const r = evalComplexBall(right, point);
  const scale = Math.max(1, l.scale, r.scale);
  // the values differ only by more than both error bounds (complex.ts) and the old relative margin
  const gap = Math.hypot(l.re - r.re, l.im - r.im);
  const differs = gap > FLOAT_MARGIN * scale && gap > 2 * (l.err + r.err);
  const text = (z: { re: number; im: number }) => (z.im === 0 ? String(z.re) : `${z.re} ${z.im < 0 ? '-' : '+'} ${Math.abs(z.im)}i`);
  return { left: text(l), right: text(r), precision: 'float', differs };
}

/** evaluation at fixed points: a counterexample refutes; agreement alone is only numeric support */
function sample(left: Ast, right: Ast, domain: Domain): Outcome {
  const vars = [...variables(right, variables(left))].sort();
  const count = vars.length === 0 ? 1 : SAMPLE.length;
  let agreed = 0;
  for (let m = 0; m < count; m++) {
    const qs = vars.map((_, j) => SAMPLE[(m + 3 * j) % SAMPLE.length]);
    const qEnv = new Map(vars.map((v, j) => [v, qs[j]]));
    const kEnv = new Map(vars.map((v, j) => [v, K.fromQ(qs[j])]));
    const point: Record<string, string> = Object.fromEntries(vars.map((v, j) => [v, qs[j].toString()]));
    try {
      const l = exact(left, kEnv, domain);
      const r = exact(right, kEnv, domain);
      if (l && r) {
        if (!l.sub(r).isZero()) {
          return { kind: 'refuted', method: 'exact_point', counterexample: { point, left: l.toString(), right: r.toString() } };
        }
        agreed++;
        continue;
      }
      const n = compareAt(left, right, qEnv, domain);
      if (n.differs) {
        return { kind: 'refuted', method: 'numeric_point', counterexample: { point, left: n.left, right: n.right, precision: n.precision } };
      }
      agreed++;
    } catch (err) {
      if (err instanceof Undecided) continue; // rounding could put the value either way: no evidence
      if (err instanceof EvalError) {
        if (vars.length === 0) throw err;
        continue; // undefined at this point (outside the domain): no evidence either way
      }
      throw err;
    }
  }
  if (agreed === 0) return { kind: 'unknown', reason: 'The two sides could not be evaluated at any sample point.' };
  return { kind: 'numeric_only', points: agreed, reason: 'The sides agree at sampled points, which is not a proof.' };
}
