import type { Complex } from 'mathjs';
import { plain as mf } from './mathjs.js';
import { EvalError, Undecided, divZero, exact } from './exact.js';
import { Q } from './field.js';
import type { Ast } from './ast.js';

/**
 * Double-precision complex values (principal branches, as mathjs) with an absolute error bound.
 * Doubles carry ~16 digits, and a rounding error divided by a small number, or an imaginary part
 * of 1e-16 that should be 0 on a branch cut (log(e^{iπ/5}^5) came out −iπ instead of iπ), turned
 * noise into counterexamples. Every node therefore returns its value and a bound on its distance
 * from the true value: rounding of each operation, and the input's error carried through the
 * operation's derivative over the disc it may lie in. Where that disc touches a pole, a branch
 * point, a branch cut or an integer under floor/ceil, the value is Undecided.
 */
export type CV = number | Complex;
export interface Ball {
  v: CV;
  /** |computed − true| ≤ e */
  e: number;
}

const U = 2 ** -52;
/** rounding of one arithmetic operation, relative to its result */
const ROUND = 4 * U;
/** error of one library function, relative to max(1, |x|, |f(x)|): generous for mathjs's formulas */
const FN = 64 * U;

const mag = (v: CV): number => (typeof v === 'number' ? Math.abs(v) : Math.hypot(v.re, v.im));
const reOf = (v: CV): number => (typeof v === 'number' ? v : v.re);
const imOf = (v: CV): number => (typeof v === 'number' ? 0 : v.im);

function finite(b: Ball): Ball {
  if (!Number.isFinite(reOf(b.v)) || !Number.isFinite(imOf(b.v))) throw new EvalError('domain', 'Value is not a finite number.');
  if (!Number.isFinite(b.e)) throw new Undecided('The value cannot be computed reliably in double precision.');
  return b;
}

const undecided = (what: string) => new Undecided(`${what} too close to a singularity or branch cut to be computed reliably.`);

/** a double that is exactly the rational it stands for carries no error */
function fromQ(q: Q): Ball {
  const v = q.toNumber();
  return { v, e: q.isInt() && Number.isSafeInteger(v) ? 0 : 4 * U * Math.abs(v) };
}

/**
 * Distance from x to where f is not analytic. Branch cuts count only for values that are complex
 * in type: a double that came from real operations is exactly real, on the side mathjs takes.
 */
function distance(name: string, x: CV): number {
  const cx = typeof x !== 'number';
  const re = reOf(x);
  const im = imOf(x);
  switch (name) {
    case 'sqrt':
    case 'log':
    case 'ln':
    case 'log10':
    case 'cbrt':
    case 'pow':
      return cx && re < 0 ? Math.abs(im) : mag(x);
    case 'asin':
    case 'acos': {
      const points = Math.min(Math.hypot(re - 1, im), Math.hypot(re + 1, im));
      return cx && Math.abs(re) >= 1 ? Math.min(Math.abs(im), points) : points;
    }
    case 'atan': {
      const points = Math.min(Math.hypot(re, im - 1), Math.hypot(re, im + 1));
      return cx && Math.abs(im) >= 1 ? Math.min(Math.abs(re), points) : points;
    }
    default:
      return Infinity;
  }
}

/** bound on |f'| over the disc of radius r around x (the caller checked that it avoids trouble) */
function slope(name: string, x: CV, r: number): number {
  const m = mag(x);
  const re = Math.abs(reOf(x));
  const im = Math.abs(imOf(x));
  switch (name) {
    case 'sin':
    case 'cos':
      return Math.cosh(im + r);
    case 'sinh':
    case 'cosh':
      return Math.cosh(re + r);
    case 'exp':
      return Math.exp(reOf(x) + r);
    case 'tan':
    case 'tanh': {
      // tan' = 1/cos², tanh' = 1/cosh²; |cos| (|cosh|) moves by at most r·cosh(|im| + r) over the disc
      const c = mag(FNS[name === 'tan' ? 'cos' : 'cosh'](x) as CV) - r * Math.cosh((name === 'tan' ? im : re) + r) - FN;
      return c > 0 ? 1 / (c * c) : Infinity;
    }
    case 'sqrt':
      return 1 / (2 * Math.sqrt(m - r));
    case 'cbrt':
      return 1 / (3 * Math.cbrt((m - r) ** 2));
    case 'log':
    case 'ln':
      return 1 / (m - r);
    case 'log10':
      return 1 / ((m - r) * Math.LN10);
    case 'asin':
    case 'acos': {
      const p = (Math.hypot(reOf(x) - 1, imOf(x)) - r) * (Math.hypot(reOf(x) + 1, imOf(x)) - r);
      return p > 0 ? 1 / Math.sqrt(p) : Infinity;
    }
    case 'atan': {
      const p = (Math.hypot(reOf(x), imOf(x) - 1) - r) * (Math.hypot(reOf(x), imOf(x) + 1) - r);
      return p > 0 ? 1 / p : Infinity;
    }
    default: // abs
      return 1;
  }
}

const FNS: Record<string, (v: CV) => unknown> = {
  sin: mf.sin, cos: mf.cos, tan: mf.tan, asin: mf.asin, acos: mf.acos, atan: mf.atan,
  sinh: mf.sinh, cosh: mf.cosh, tanh: mf.tanh, sqrt: mf.sqrt, cbrt: (v) => (typeof v === 'number' ? Math.cbrt(v) : mf.pow(v, 1 / 3)),
  abs: mf.abs, exp: mf.exp, log: mf.log, ln: mf.log, log10: mf.log10,
};

function apply(name: string, x: Ball): Ball {
  if ((name === 'log' || name === 'ln' || name === 'log10') && mag(x.v) === 0 && x.e === 0) {
    throw new EvalError('domain', 'Logarithm of zero is undefined.');
  }
  if (x.e > 0 && distance(name, x.v) <= 2 * x.e) throw undecided(`The argument of ${name} is`);
  const v = FNS[name](x.v) as CV;
  const propagated = x.e > 0 ? x.e * slope(name, x.v, x.e) : 0;
  return finite({ v, e: propagated + FN * (1 + mag(x.v) + mag(v)) });
}

/** floor, ceil, factorial, binomial: exact on exactly known arguments clear of an integer's doubt */
function integral(a: Extract<Ast, { k: 'fn' }>, args: Ball[]): Ball {
  const qs = args.map((b) => {
    // a complex-typed value may be real (−e^{iπ/5}⁵ is 1 ± 1e-16i): only a provably non-zero imaginary part is outside the domain
    const im = Math.abs(imOf(b.v));
    if (im > 2 * b.e) throw new EvalError('domain', `${a.name} of a complex number is undefined.`);
    const v = reOf(b.v);
    const e = b.e + im;
    if (e > 0 && Math.abs(v - Math.round(v)) <= 2 * e) {
      throw new Undecided(`The ${a.name} argument is within rounding of an integer in double precision, but not provably an integer.`);
    }
    const [n, d] = fraction(v);
    return { k: 'num' as const, q: Q.of(n, d), text: String(v) };
  });
  const k = exact({ ...a, args: qs }, null, 'real');
  if (!k) throw new EvalError('domain', `${a.name} is defined for non-negative integers only.`);
  const v = k.toComplex().re;
  return { v, e: Number.isSafeInteger(v) ? 0 : U * Math.abs(v) };
}

/** the exact rational value of a finite double */
function fraction(x: number): [bigint, bigint] {
  let d = 1n;
  let y = x;
  while (!Number.isInteger(y)) {
    y *= 2;
    d *= 2n;
  }
  return [BigInt(y), d];
}

function power(b: Ball, x: Ball): Ball {
  const exactInt = typeof x.v === 'number' && x.e === 0 && Number.isInteger(x.v);
  const mb = mag(b.v);
  if (mb === 0 && b.e === 0) {
    if (typeof x.v === 'number' && x.v < 0) throw divZero();
    return { v: mf.pow(b.v, x.v) as CV, e: 0 };
  }
  if (exactInt) {
    const n = Math.abs(x.v as number);
    if (n === 0) return { v: 1, e: 0 };
    const v = mf.pow(b.v, x.v) as CV;
    let e: number;
    if ((x.v as number) > 0) e = n * (mb + b.e) ** (n - 1) * b.e;
    else if (mb > 2 * b.e) e = (n * b.e) / (mb - b.e) ** (n + 1);
    else throw undecided('The base of a negative power is');
    return finite({ v, e: e + FN * (1 + n) * mag(v) });
  }
  // b^x = exp(x·log b), principal branch: the cut of log and the error of the product carry over
  const l = apply('log', b);
  const p = mul(x, l);
  const v = mf.pow(b.v, x.v) as CV;
  return finite({ v, e: mag(v) * Math.expm1(p.e) + FN * (1 + mag(p.v)) * mag(v) });
}

function mul(a: Ball, b: Ball): Ball {
  const v = mf.multiply(a.v, b.v) as CV;
  return finite({ v, e: mag(a.v) * b.e + mag(b.v) * a.e + a.e * b.e + ROUND * mag(v) });
}

let scale = 0;

function node(a: Ast, env: ReadonlyMap<string, Q> | null): Ball {
  switch (a.k) {
    case 'num': {
      const v = Number(a.text);
      return { v, e: a.q.isInt() && Number.isSafeInteger(v) ? 0 : 2 * U * Math.abs(v) };
    }
    case 'var': {
      const q = env?.get(a.name);
      if (q === undefined) throw new EvalError('domain', `Variable ${a.name} has no value.`);
      return fromQ(q);
    }
    case 'const':
      if (a.name === 'i') return { v: mf.complex(0, 1), e: 0 };
      return { v: a.name === 'pi' ? Math.PI : Math.E, e: U * 4 };
    case 'neg': {
      const x = ball(a.a, env);
      return { v: mf.unaryMinus(x.v) as CV, e: x.e };
    }
    case 'add':
    case 'sub': {
      const x = ball(a.a, env);
      const y = ball(a.b, env);
      const v = (a.k === 'add' ? mf.add(x.v, y.v) : mf.subtract(x.v, y.v)) as CV;
      return finite({ v, e: x.e + y.e + ROUND * mag(v) });
    }
    case 'mul':
      return mul(ball(a.a, env), ball(a.b, env));
    case 'div': {
      const y = ball(a.b, env);
      const my = mag(y.v);
      if (my === 0 && y.e === 0) throw divZero();
      if (my <= 2 * y.e) throw undecided('A divisor is');
      const x = ball(a.a, env);
      const v = mf.divide(x.v, y.v) as CV;
      return finite({ v, e: (mag(x.v) * y.e + my * x.e) / (my * (my - y.e)) + ROUND * mag(v) });
    }
    case 'pow':
      return power(ball(a.a, env), ball(a.b, env));
    case 'fn': {
      const args = a.args.map((x) => ball(x, env));
      if (['factorial', 'binomial', 'floor', 'ceil'].includes(a.name)) return integral(a, args);
      return apply(a.name, args[0]);
    }
  }
}

function ball(a: Ast, env: ReadonlyMap<string, Q> | null): Ball {
  const b = node(a, env);
  const m = mag(b.v);
  if (m > scale) scale = m;
  return b;
}

/** value, error bound, and the largest magnitude met at any node of this evaluation */
export function evalComplexBall(a: Ast, env: ReadonlyMap<string, Q> | null): { re: number; im: number; err: number; scale: number } {
  scale = 0;
  const b = ball(a, env);
  return { re: reOf(b.v), im: imOf(b.v), err: b.e, scale };
}
