import { Decimal as DecimalLib } from 'decimal.js';
import { K, Q } from './field.js';
import { EvalError, Undecided, divZero, exact, type Domain } from './exact.js';
import { evalComplexBall } from './complex.js';
import type { Ast } from './ast.js';

/** 50 significant digits: far beyond the margins used to call two values different (see docs) */
export const Dec = DecimalLib.clone({ precision: 50, rounding: 6, toExpNeg: -60, toExpPos: 60 });
export type Dec = InstanceType<typeof Dec>;
/** a point: each variable's exact rational value */
type Env = ReadonlyMap<string, Q> | null;

/** thrown by the decimal evaluator when a value leaves the real line */
export class NeedComplex extends Error {}

export function kToDec(v: K): Dec {
  return kToDecWith(Dec, v);
}

/**
 * 1, √2, √3, √6 at each constructor's precision: constants, computed once per constructor instead
 * of three 50-digit square roots per value converted (they were most of an expected-value check).
 */
const ROOTS = new Map<typeof Dec, Dec[]>();
function rootsOf(D: typeof Dec): Dec[] {
  let r = ROOTS.get(D);
  if (!r) ROOTS.set(D, (r = [new D(1), D.sqrt(2), D.sqrt(3), D.sqrt(6)]));
  return r;
}

function kToDecWith(D: typeof Dec, v: K): Dec {
  return kTermsWith(D, v).value;
}

/** the value and its largest term: the terms are rounded, so their size bounds the sum's error */
function kTermsWith(D: typeof Dec, v: K): { value: Dec; scale: Dec } {
  if (!v.isReal()) throw new NeedComplex('complex');
  const roots = rootsOf(D);
  let s = new D(0);
  let scale = new D(0);
  v.coefficients().forEach((q, m) => {
    if (m >= 4 || q.isZero()) return;
    const term = new D(q.n.toString()).div(q.d.toString()).times(roots[m]);
    s = s.plus(term);
    if (term.abs().gt(scale)) scale = term.abs();
  });
  return { value: s, scale };
}

type DecCtor = typeof Dec;
type DecEval = ReturnType<typeof makeDecEval>;

/** precisions a floor or ceil may confirm its argument at (50 → 90 → 130 → 170 for nested ones) */
const CONFIRM_STEP = 40;
const MAX_PRECISION = 170;
const evaluators = new Map<number, DecEval>();

function evaluatorAt(precision: number): DecEval {
  let e = evaluators.get(precision);
  if (!e) {
    const D = DecimalLib.clone({ precision, rounding: 6, toExpNeg: -(precision + 10), toExpPos: precision + 10 }) as DecCtor;
    evaluators.set(precision, (e = makeDecEval(D, precision)));
  }
  return e;
}

/**
 * A real evaluator at the precision of `D`. It records the largest magnitude met at any node
 * (`scale`): rounding error is relative to that, so a difference is only trusted above it.
 * Variables come as exact rationals and are rounded here, at this evaluator's precision.
 */
function makeDecEval(D: DecCtor, precision: number) {
  const PI = D.acos(-1);
  const E = D.exp(1);
  let scale = new D(0);
  const fin = (x: Dec): Dec => {
    if (!x.isFinite()) throw new EvalError('domain', 'Value is not a finite number.');
    return x;
  };
  const ev = (a: Ast, env: Env): Dec => {
    const v = inner(a, env);
    const m = v.abs();
    if (m.gt(scale)) scale = m;
    return v;
  };
  /**
   * floor and ceil jump at every integer, so a rounded argument near one could land on the wrong
   * side (ceil(sqrt(7)^2) came out 8): the argument is used exactly when it is rational, else only
   * when it clears an integer by more than its rounding error and a run 40 digits finer agrees.
   */
  function integerPart(a: Extract<Ast, { k: 'fn' }>, x: Dec, env: Env): Dec {
    const arg = a.args[0];
    // an integer-valued function's value is exact; any other rational argument is computed exactly
    if (arg.k === 'fn' && ['floor', 'ceil', 'factorial', 'binomial'].includes(arg.name)) return x;
    const kEnv = env && new Map([...env].map(([k, q]) => [k, K.fromQ(q)]));
    const v = exact(a, kEnv, 'complex')?.rational();
    if (v) return new D(v.n.toString());
    const n = x.round();
    const finer = precision + CONFIRM_STEP <= MAX_PRECISION ? evaluatorAt(precision + CONFIRM_STEP).eval(arg, env) : null;
    if (!finer || !settled(x.minus(n), finer.minus(n), scale)) {
      throw new Undecided(`${a.name} of a value this close to an integer cannot be decided numerically.`);
    }
    return a.name === 'floor' ? x.floor() : x.ceil();
  }
  /**
   * The exact argument of factorial or binomial. A rounded one is used only when it is provably not
   * an integer or provably negative (a true domain error); one within rounding of an integer is
   * Undecided: sqrt(5)^2 came out 5.000…01 and was refused as outside the domain, which it is not.
   */
  function integerArgument(name: string, arg: Ast, x: Dec, env: Env): Q {
    // an integer-valued function's value is an integer of at most a few digits here (the cost gate)
    if (arg.k === 'fn' && ['floor', 'ceil', 'factorial', 'binomial'].includes(arg.name) && x.isInteger()) return qOf(x);
    const kEnv = env && new Map([...env].map(([k, q]) => [k, K.fromQ(q)]));
    const v = exact(arg, kEnv, 'complex')?.rational();
    if (v) return v;
    const n = x.round();
    const finer = precision + CONFIRM_STEP <= MAX_PRECISION ? evaluatorAt(precision + CONFIRM_STEP).eval(arg, env) : null;
    if (finer && (settled(x.minus(n), finer.minus(n), scale) || (x.isNeg() && settled(x, finer, scale)))) {
      throw new EvalError('domain', `${name} is defined for non-negative integers only.`);
    }
    throw new Undecided(`The ${name} argument is within rounding of an integer, but not provably an integer.`);
  }
  function inner(a: Ast, env: Env): Dec {
    switch (a.k) {
      case 'num':
        return new D(a.text);
      case 'var': {
        const q = env?.get(a.name);
        if (!q) throw new EvalError('domain', `Variable ${a.name} has no value.`);
        return new D(q.n.toString()).div(q.d.toString());
      }
      case 'const':
        if (a.name === 'i') throw new NeedComplex('i');
        return a.name === 'pi' ? PI : E;
      case 'neg':
        return ev(a.a, env).neg();
      case 'add':
        return fin(ev(a.a, env).plus(ev(a.b, env)));
      case 'sub':
        return fin(ev(a.a, env).minus(ev(a.b, env)));
      case 'mul':
        return fin(ev(a.a, env).times(ev(a.b, env)));
      case 'div': {
        const y = ev(a.b, env);
        if (y.isZero()) throw divZero();
        return fin(ev(a.a, env).div(y));
      }
      case 'pow': {
        const b = ev(a.a, env);
        const e = ev(a.b, env);
        if (b.isZero() && e.isNeg()) throw divZero();
        if (b.isNeg() && !e.isInteger()) throw new NeedComplex('root of a negative number');
        return fin(b.pow(e));
      }
      case 'fn': {
        // integer-valued functions are computed exactly and converted
        if (a.name === 'factorial' || a.name === 'binomial') {
          const args = a.args.map((x) => integerArgument(a.name, x, ev(x, env), env));
          const v = exact({ ...a, args: args.map((q) => ({ k: 'num' as const, q, text: q.toString() })) }, null, 'real');
          if (!v) throw new EvalError('domain', `${a.name} is defined for non-negative integers only.`);
          return kToDecWith(D, v);
        }
        const x = ev(a.args[0], env);
        switch (a.name) {
          case 'sin': return D.sin(x);
          case 'cos': return D.cos(x);
          case 'tan': {
            if (D.cos(x).isZero()) throw divZero();
            return fin(D.tan(x));
          }
          case 'asin':
          case 'acos':
            if (x.abs().gt(1)) throw new NeedComplex(a.name);
            return a.name === 'asin' ? D.asin(x) : D.acos(x);
          case 'atan': return D.atan(x);
          case 'sinh': return fin(D.sinh(x));
          case 'cosh': return fin(D.cosh(x));
          case 'tanh': return D.tanh(x);
          case 'sqrt':
            if (x.isNeg()) throw new NeedComplex('sqrt');
            return D.sqrt(x);
          case 'cbrt': return D.cbrt(x);
          case 'abs': return x.abs();
          case 'exp': return fin(D.exp(x));
          case 'log':
          case 'ln':
          case 'log10':
            if (x.isZero()) throw new EvalError('domain', 'Logarithm of zero is undefined.');
            if (x.isNeg()) throw new NeedComplex('log');
            return a.name === 'log10' ? D.log10(x) : D.ln(x);
          case 'floor':
          case 'ceil':
            return integerPart(a, x, env);
        }
      }
    }
    throw new EvalError('domain', 'Unsupported expression.');
  }
  return {
    eval(a: Ast, env: Env): Dec {
      scale = new D(0);
      return ev(a, env);
    },
    scale: (): Dec => scale,
  };
}

const Dec90 = DecimalLib.clone({ precision: 90, rounding: 6, toExpNeg: -100, toExpPos: 100 });
evaluators.set(50, makeDecEval(Dec, 50));
evaluators.set(90, makeDecEval(Dec90 as DecCtor, 90));
const dec50 = evaluatorAt(50);
const dec90 = evaluatorAt(90);

/** real value at 50 digits; EvalError when undefined, NeedComplex when the value is not real */
export function evalDec(a: Ast, env: Env): Dec {
  return dec50.eval(a, env);
}

/** a real value at 50 and at 90 digits, with the largest magnitude its 50-digit computation met */
export interface Checked {
  v50: Dec;
  v90: Dec;
  scale: Dec;
}

/** a difference is below rounding error unless it exceeds this share of the largest magnitude met */
const DEC_MARGIN = new Dec('1e-30');
/** ... and the 90-digit run must agree with it to this share (cancellation cannot fake a sign) */
const CONFIRM = new Dec('1e-3');

/**
 * Whether the sign of a 50-digit quantity can be trusted: it must clear 1e-30 of the largest
 * magnitude met (`scale`, at least 1) and the same quantity at 90 digits must confirm it. Huge terms
 * that cancel, or a rounding error multiplied up, give a 50-digit value the 90-digit run disowns.
 */
export function settled(d50: Dec, d90: Dec, scale: Dec): boolean {
  return d50.abs().gt(Dec.max(1, scale).times(DEC_MARGIN)) && d50.minus(d90).abs().lte(d50.abs().times(CONFIRM));
}

/** an element of K that is real, at 50 and 90 digits: its terms are rounded before they are added */
export function kChecked(v: K): Checked {
  const lo = kTermsWith(Dec, v);
  return { v50: lo.value, v90: kToDecWith(Dec90 as DecCtor, v), scale: lo.scale };
}

/**
 * The same value at 50 and at 90 digits, with the 50-digit run's largest intermediate magnitude:
 * the identity sampler trusts a difference only when both precisions agree on it.
 */
export function evalDecChecked(a: Ast, point: Env): Checked {
  const v50 = dec50.eval(a, point);
  const scale = dec50.scale();
  const v90 = dec90.eval(a, point);
  return { v50, v90, scale };
}

function qOf(d: Dec): Q {
  const [n, den] = d.toFraction();
  return Q.of(BigInt(n.toFixed()), BigInt(den.toFixed()));
}

/** a complex value is a double pair with its error bound (complex.ts) */
export type Approx = { kind: 'real'; value: Dec } | { kind: 'complex'; re: number; im: number; err: number };

/** best numeric value: 50-digit real when the value is real, else a double complex (complex domain only) */
export function approximate(a: Ast, env: Env, domain: Domain): Approx {
  try {
    return { kind: 'real', value: evalDec(a, env) };
  } catch (err) {
    if (!(err instanceof NeedComplex)) throw err;
    if (domain === 'real') throw new EvalError('domain', 'The value is not a real number.');
  }
  const { re, im, err } = evalComplexBall(a, env);
  return { kind: 'complex', re, im, err };
}
