import type { Formula, Term } from './dsl.js';
import { type Q, ceil, cmp, div, floor, q } from './evaluate.js';
import { conjuncts, literalAtom } from './shape.js';

/**
 * The sound pre-solver for `bounds` queries: a conjunction of atoms over one variable each. Each
 * atom `a·x + b ⋈ 0` is a bound on x; intersecting them per variable decides the conjunction with
 * no search. Int bounds are rounded inward (`x < 5/2` is `x ≤ 2`). The answer carries its proof:
 * UNSAT names the variable and the two atoms whose bounds cross; SAT gives a model inside every
 * interval, which the engine re-checks with its own evaluator before answering.
 */
interface Bound {
  value: Q;
  strict: boolean;
  /** index of the conjunct that set it */
  from: number;
}

export type IntervalResult =
  | { status: 'SAT'; model: Record<string, string> }
  | { status: 'UNSAT'; proof: { variable: string; lower: string; upper: string } }
  | null;

const show = (v: Q): string => (v.d === 1n ? v.n.toString() : `${v.n}/${v.d}`);

/** Tighter of two lower (or upper) bounds; ties keep the strict one. */
function tighter(a: Bound | undefined, b: Bound, lower: boolean): Bound {
  if (!a) return b;
  const c = cmp(b.value, a.value);
  if (c === 0) return b.strict && !a.strict ? b : a;
  return (lower ? c > 0 : c < 0) ? b : a;
}

export function solveIntervals(f: Formula, canonicalOf: (t: Term) => string): IntervalResult {
  const parts = conjuncts(f.body);
  const sorts = new Map(f.vars.map((v) => [v.name, v.sort]));
  const lo = new Map<string, Bound>();
  const hi = new Map<string, Bound>();
  for (let i = 0; i < parts.length; i++) {
    const a = literalAtom(parts[i]);
    if (!a || a.op === 'NEQ' || a.form.coefs.size !== 1) return null;
    const [[name, coef]] = [...a.form.coefs];
    const isInt = sorts.get(name) === 'Int';
    // coef·x + c ⋈ 0  ⇔  x ⋈' −c/coef (flipped when coef < 0)
    const at = div(q(-a.form.constant.n, a.form.constant.d), coef);
    const flip = coef.n < 0n;
    const op = !flip ? a.op : ({ GT: 'LT', LT: 'GT', GTE: 'LTE', LTE: 'GTE', EQ: 'EQ' } as const)[a.op];
    const strict = op === 'GT' || op === 'LT';
    const setLo = (value: Q, s: boolean) => lo.set(name, tighter(lo.get(name), { value, strict: s, from: i }, true));
    const setHi = (value: Q, s: boolean) => hi.set(name, tighter(hi.get(name), { value, strict: s, from: i }, false));
    if (isInt) {
      // integer rounding: x > v ⇔ x ≥ ⌊v⌋+1, x ≥ v ⇔ x ≥ ⌈v⌉, x < v ⇔ x ≤ ⌈v⌉−1, x ≤ v ⇔ x ≤ ⌊v⌋
      if (op === 'GT' || op === 'GTE' || op === 'EQ') setLo(q(op === 'GT' ? floor(at) + 1n : ceil(at)), false);
      if (op === 'LT' || op === 'LTE' || op === 'EQ') setHi(q(op === 'LT' ? ceil(at) - 1n : floor(at)), false);
    } else {
      if (op === 'GT' || op === 'GTE' || op === 'EQ') setLo(at, strict);
      if (op === 'LT' || op === 'LTE' || op === 'EQ') setHi(at, strict);
    }
  }
  const model: Record<string, string> = {};
  for (const v of f.vars) {
    const l = lo.get(v.name);
    const h = hi.get(v.name);
    if (l && h) {
      const c = cmp(l.value, h.value);
      if (c > 0 || (c === 0 && (l.strict || h.strict))) {
        return { status: 'UNSAT', proof: { variable: v.name, lower: canonicalOf(parts[l.from]), upper: canonicalOf(parts[h.from]) } };
      }
    }
    model[v.name] = show(pick(l, h, v.sort === 'Int'));
  }
  return { status: 'SAT', model };
}

/** A value inside the interval: 0 when allowed, else the closed end nearest to it, else a midpoint. */
function pick(l: Bound | undefined, h: Bound | undefined, isInt: boolean): Q {
  const zero = q(0n);
  const aboveLo = !l || cmp(zero, l.value) > 0 || (cmp(zero, l.value) === 0 && !l.strict);
  const belowHi = !h || cmp(zero, h.value) < 0 || (cmp(zero, h.value) === 0 && !h.strict);
  if (aboveLo && belowHi) return zero;
  const step = q(1n);
  if (!aboveLo && l) {
    if (!l.strict) return l.value;
    if (!h) return q(l.value.n + l.value.d, l.value.d); // l + 1
    return isInt ? l.value : q(l.value.n * h.value.d + h.value.n * l.value.d, 2n * l.value.d * h.value.d);
  }
  if (h) {
    if (!h.strict) return h.value;
    if (!l) return q(h.value.n - h.value.d, h.value.d); // h − 1
    return isInt ? h.value : q(l.value.n * h.value.d + h.value.n * l.value.d, 2n * l.value.d * h.value.d);
  }
  return step;
}
