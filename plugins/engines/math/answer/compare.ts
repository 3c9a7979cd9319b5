import { decideEquation } from '../identity.js';
import type { Domain } from '../exact.js';
import type { Ast } from '../ast.js';
import { C, MathRefusal } from '../errors.js';
import type { Shape, Value } from './shape.js';

export type Form = 'number' | 'symbolic' | 'set' | 'interval' | 'tuple' | 'text' | 'union' | 'matrix' | 'equation';

/**
 * Equal: proven, with the form; unequal: proven (a counterexample, or shapes that cannot be equal);
 * undecided: the values agree only numerically or could not be evaluated — never called equal.
 */
export type Outcome =
  | { equal: true; form: Form; methods: string[] }
  | { equal: false; form: Form | null; reason: string }
  | { equal: 'undecided'; reason: string };

type Eq = { r: true; method: string } | { r: false } | { r: 'undecided'; reason: string };

const constant = (a: Ast): boolean => {
  switch (a.k) {
    case 'var':
      return false;
    case 'num':
    case 'const':
      return true;
    case 'neg':
      return constant(a.a);
    case 'fn':
      return a.args.every(constant);
    default:
      return constant(a.a) && constant(a.b);
  }
};

function eqValue(x: Value, y: Value, domain: Domain): Eq {
  if ('inf' in x || 'inf' in y) return 'inf' in x && 'inf' in y && x.inf === y.inf ? { r: true, method: 'infinity' } : { r: false };
  const o = decideEquation(x.ast, y.ast, domain);
  if (o.kind === 'holds') return { r: true, method: o.method };
  if (o.kind === 'refuted') return { r: false };
  return { r: 'undecided', reason: o.reason };
}

const valueForm = (v: Value): Form => ('ast' in v && !constant(v.ast) ? 'symbolic' : 'number');

/** elementwise, in order: all equal, one proven different, or undecided */
function eqAll(xs: Value[], ys: Value[], domain: Domain): Eq & { methods?: string[] } {
  if (xs.length !== ys.length) return { r: false };
  const methods: string[] = [];
  let undecided: string | null = null;
  for (let i = 0; i < xs.length; i++) {
    const e = eqValue(xs[i], ys[i], domain);
    if (e.r === false) return { r: false };
    if (e.r === 'undecided') undecided ??= e.reason;
    else methods.push(e.method);
  }
  return undecided ? { r: 'undecided', reason: undecided } : { r: true, method: 'elementwise', methods };
}

/** as sets: every element of each has an equal element in the other */
function eqSets(xs: Value[], ys: Value[], domain: Domain): Eq & { methods?: string[] } {
  const methods: string[] = [];
  let undecided: string | null = null;
  const covered = (from: Value[], to: Value[]): boolean | 'undecided' => {
    for (const a of from) {
      let found: boolean | 'undecided' = false;
      for (const b of to) {
        const e = eqValue(a, b, domain);
        if (e.r === true) {
          found = true;
          methods.push(e.method);
          break;
        }
        if (e.r === 'undecided') {
          found = 'undecided';
          undecided ??= e.reason;
        }
      }
      if (found === false) return false;
      if (found === 'undecided') return 'undecided';
    }
    return true;
  };
  const ab = covered(xs, ys);
  if (ab === false) return { r: false };
  const ba = covered(ys, xs);
  if (ba === false) return { r: false };
  if (ab === 'undecided' || ba === 'undecided') return { r: 'undecided', reason: undecided ?? 'undecided element' };
  return { r: true, method: 'set', methods };
}

/**
 * As multisets (a bare list on either side: `1, 1, 2` is not `1, 2, 2`): the same length and each
 * item matched to its own equal item. Equality is an equivalence, so matching greedily is exact.
 */
function eqMultisets(xs: Value[], ys: Value[], domain: Domain): Eq & { methods?: string[] } {
  if (xs.length !== ys.length) return { r: false };
  const used = new Set<number>();
  const methods: string[] = [];
  for (const a of xs) {
    let undecided: string | null = null;
    let hit = -1;
    for (let j = 0; j < ys.length && hit < 0; j++) {
      if (used.has(j)) continue;
      const e = eqValue(a, ys[j], domain);
      if (e.r === true) {
        hit = j;
        methods.push(e.method);
      } else if (e.r === 'undecided') undecided ??= e.reason;
    }
    if (hit < 0) return undecided ? { r: 'undecided', reason: undecided } : { r: false };
    used.add(hit);
  }
  return { r: true, method: 'set', methods };
}

function done(e: Eq & { methods?: string[] }, form: Form, mismatch: string): Outcome {
  if (e.r === true) return { equal: true, form, methods: e.methods ?? [e.method] };
  if (e.r === false) return { equal: false, form, reason: mismatch };
  return { equal: 'undecided', reason: e.reason };
}

/** a one-element set or list is compared as its element; a pair in round brackets, against an interval or union, as an open interval */
function widen(a: Shape, b: Shape): [Shape, Shape] {
  if (a.kind === 'set' && a.items.length === 1 && b.kind === 'value') return [{ kind: 'value', v: a.items[0] }, b];
  if (b.kind === 'set' && b.items.length === 1 && a.kind === 'value') return [a, { kind: 'value', v: b.items[0] }];
  const ranged = (k: Shape['kind']) => k === 'interval' || k === 'union';
  if (a.kind === 'tuple' && a.items.length === 2 && ranged(b.kind)) return [{ kind: 'interval', lo: a.items[0], hi: a.items[1], loClosed: false, hiClosed: false }, b];
  if (b.kind === 'tuple' && b.items.length === 2 && ranged(a.kind)) return [a, { kind: 'interval', lo: b.items[0], hi: b.items[1], loClosed: false, hiClosed: false }];
  return [a, b];
}

type Interval = Extract<Shape, { kind: 'interval' }>;

/**
 * Unions are matched interval by interval, each of one with an equal interval of the other: that
 * proves them equal. Unions are not merged or ordered here, so a failed match proves nothing —
 * `(0,1] \cup (1,2)` is `(0,2)` — and is refused rather than called unequal.
 */
function compareUnions(xs: Interval[], ys: Interval[], domain: Domain): Outcome {
  const methods: string[] = [];
  const covered = (from: Interval[], to: Interval[]): Outcome | null => {
    for (const a of from) {
      let undecided: Outcome | null = null;
      const hit = to.some((b) => {
        const o = compareShapes(a, b, domain);
        if (o.equal === true) methods.push(...o.methods);
        else if (o.equal === 'undecided') undecided ??= o;
        return o.equal === true;
      });
      if (!hit) return undecided ?? refuseUnmatched();
    }
    return null;
  };
  return covered(xs, ys) ?? covered(ys, xs) ?? { equal: true, form: 'union', methods };
}

/**
 * Equations: equal when their sides are equal (in either order) or their differences l − r are
 * equal as expressions. `2x - 3y = 6` and `4x - 6y = 12` are the same line but are not proven so
 * here: a pair that is not matched is refused, never called unequal.
 */
function compareEquations(a: Extract<Shape, { kind: 'equation' }>, b: Extract<Shape, { kind: 'equation' }>, domain: Domain): Outcome {
  const diff = (e: typeof a): Value => ('ast' in e.l && 'ast' in e.r ? { ast: { k: 'sub', a: e.l.ast, b: e.r.ast }, plain: `${e.l.plain} - (${e.r.plain})` } : e.l);
  for (const [x, y] of [[[a.l, a.r], [b.l, b.r]], [[a.l, a.r], [b.r, b.l]], [[diff(a)], [diff(b)]]] as Array<[Value[], Value[]]>) {
    const e = eqAll(x, y, domain);
    if (e.r === true) return { equal: true, form: 'equation', methods: e.methods ?? [e.method] };
  }
  throw new MathRefusal(C.disallowed, 'Equations are compared side by side and by their differences; these do not match, and a rescaled equation is not proven equal or unequal here.', { construct: 'equation' });
}

function refuseUnmatched(): never {
  throw new MathRefusal(C.disallowed, 'Unions of intervals are compared interval by interval, and these do not match one to one; unions are not merged, so their inequality is not proven.', { construct: 'union' });
}

export function compareShapes(pa: Shape, pb: Shape, domain: Domain): Outcome {
  const [a, b] = widen(pa, pb);
  if ((a.kind === 'union' || b.kind === 'union') && (a.kind === 'interval' || b.kind === 'interval' || a.kind === b.kind)) {
    const parts = (s: Shape): Interval[] => (s.kind === 'union' ? s.parts : [s as Interval]);
    return compareUnions(parts(a), parts(b), domain);
  }
  if (a.kind !== b.kind) return { equal: false, form: null, reason: `a ${a.kind} is not a ${b.kind}` };
  switch (a.kind) {
    case 'text': {
      const other = b as typeof a;
      return a.v === other.v ? { equal: true, form: 'text', methods: ['text'] } : { equal: false, form: 'text', reason: 'different text' };
    }
    case 'value': {
      const other = b as typeof a;
      const form = valueForm(a.v) === 'symbolic' || valueForm(other.v) === 'symbolic' ? 'symbolic' : 'number';
      const e = eqValue(a.v, other.v, domain);
      return done(e.r === true ? { ...e, methods: [e.method] } : e, form, form === 'number' ? 'different numbers' : 'different expressions');
    }
    case 'tuple':
      return done(eqAll(a.items, (b as typeof a).items, domain), 'tuple', 'different tuples');
    case 'set': {
      const other = b as typeof a;
      if (a.list || other.list) return done(eqMultisets(a.items, other.items, domain), 'set', 'different lists');
      return done(eqSets(a.items, other.items, domain), 'set', 'different sets');
    }
    case 'matrix': {
      const other = b as typeof a;
      const dims = (m: Value[][]) => `${m.length}x${m[0].length}`;
      if (dims(a.rows) !== dims(other.rows)) return { equal: false, form: 'matrix', reason: `a ${dims(a.rows)} matrix is not a ${dims(other.rows)} matrix` };
      return done(eqAll(a.rows.flat(), other.rows.flat(), domain), 'matrix', 'different entries');
    }
    case 'union':
      return refuseUnmatched();
    case 'equation':
      return compareEquations(a, b as typeof a, domain);
    case 'interval': {
      const other = b as typeof a;
      if (a.loClosed !== other.loClosed || a.hiClosed !== other.hiClosed) return { equal: false, form: 'interval', reason: 'different endpoint brackets' };
      return done(eqAll([a.lo, a.hi], [other.lo, other.hi], domain), 'interval', 'different endpoints');
    }
  }
}
