import { C, MathRefusal } from './errors.js';
import { exact, EvalError } from './exact.js';
import { evalDec, NeedComplex } from './approx.js';
import { evalComplexBall } from './complex.js';
import { isConstant, type Ast } from './ast.js';

export const MAX_EXPONENT = 10_000;
export const MAX_FACTORIAL = 10_000;
export const MAX_RESULT_DIGITS = 100_000;
/** digits assumed for a variable's value at the sample points the engine evaluates */
const VAR_DIGITS = 4;

function refuse(limit: string, message: string, extra: Record<string, unknown> = {}): never {
  throw new MathRefusal(C.cost, message, { limit, ...extra });
}

/**
 * Upper bound on |value| of a gated constant subtree, computed only after the subtree itself passed
 * the gate (so the evaluation is cheap). Null when no finite bound can be had: callers fail closed.
 */
function constMagnitude(a: Ast): number | null {
  try {
    const v = exact(a, null, 'complex');
    if (v) {
      const z = v.toComplex();
      return Math.hypot(z.re, z.im);
    }
    const d = evalDec(a, null).abs().toNumber();
    return Number.isFinite(d) ? d : null;
  } catch (err) {
    if (err instanceof EvalError) throw err;
    if (!(err instanceof NeedComplex)) return null;
  }
  try {
    // complex constants (e^{iπ/3}): |z| bounds the real part, which is what exp grows with
    const z = evalComplexBall(a, null);
    const m = Math.hypot(z.re, z.im) + z.err;
    return Number.isFinite(m) ? m : null;
  } catch (err) {
    if (err instanceof EvalError) throw err;
    return null;
  }
}

/**
 * Compute-cost gate, run on the tree before anything is evaluated. Returns an upper estimate of the
 * decimal digits of the value (numerator plus denominator for exact rationals); every operation adds
 * or multiplies these estimates, so nested bases (`(10^300)^10000`) are caught without computing.
 */
export function costDigits(a: Ast): number {
  return size(a).s;
}

/** log10 of an integer-or-rational literal's numerator plus denominator */
function literalLog(a: Extract<Ast, { k: 'num' }>): number {
  const n = a.q.n < 0n ? -a.q.n : a.q.n;
  const len = (x: bigint) => {
    const t = x.toString();
    return t.length - 1 + Math.log10(Number(t.slice(0, 15)) / 10 ** (Math.min(t.length, 15) - 1));
  };
  return (n === 0n ? 0 : len(n)) + len(a.q.d) + 0.01;
}

/** s: estimated digits; int: the subtree stays integral (sums then grow by one digit, not by the operands' sum) */
interface Size {
  s: number;
  int: boolean;
}

function size(a: Ast): Size {
  let r: Size;
  switch (a.k) {
    case 'num':
      r = { s: literalLog(a), int: a.q.isInt() };
      break;
    case 'var':
      r = { s: VAR_DIGITS, int: false };
      break;
    case 'const':
      r = { s: 1, int: false };
      break;
    case 'neg':
      r = size(a.a);
      break;
    case 'add':
    case 'sub': {
      const x = size(a.a);
      const y = size(a.b);
      r = x.int && y.int ? { s: Math.max(x.s, y.s) + 1, int: true } : { s: x.s + y.s + 1, int: false };
      break;
    }
    case 'mul':
    case 'div': {
      const x = size(a.a);
      const y = size(a.b);
      r = { s: x.s + y.s, int: a.k === 'mul' && x.int && y.int };
      break;
    }
    case 'pow':
      r = powSize(a.a, a.b);
      break;
    case 'fn':
      r = { s: fnDigits(a), int: a.name === 'factorial' || a.name === 'binomial' || a.name === 'floor' || a.name === 'ceil' };
      break;
  }
  if (r.s > MAX_RESULT_DIGITS) refuse('result_digits', `Estimated result exceeds ${MAX_RESULT_DIGITS} digits.`, { max: MAX_RESULT_DIGITS });
  return r;
}

function digits(a: Ast): number {
  return size(a).s;
}

function powSize(base: Ast, exponent: Ast): Size {
  if (!isConstant(exponent)) refuse('exponent', 'An exponent that depends on a variable cannot be bounded.');
  const ed = digits(exponent);
  // an exponent needing more than 6 digits is above the limit whatever its exact value (towers: 9^9^9, 2^(9^9))
  if (ed > 60) refuse('exponent', `Exponent exceeds ${MAX_EXPONENT}.`, { max: MAX_EXPONENT });
  const e = constMagnitude(exponent);
  if (e === null) refuse('exponent', 'The exponent cannot be bounded.');
  if (e > MAX_EXPONENT) refuse('exponent', `Exponent exceeds ${MAX_EXPONENT}.`, { max: MAX_EXPONENT });
  const b = size(base);
  return { s: Math.max(1, b.s * Math.max(1, e)), int: b.int && e === Math.floor(e) && constNonNegative(exponent) };
}

function constNonNegative(a: Ast): boolean {
  try {
    const r = exact(a, null, 'complex')?.rational();
    return !!r && r.sign() >= 0;
  } catch {
    return false;
  }
}

function fnDigits(a: Extract<Ast, { k: 'fn' }>): number {
  const argDigits = a.args.map(digits);
  const [d0] = argDigits;
  switch (a.name) {
    case 'factorial':
    case 'binomial': {
      if (!a.args.every(isConstant)) refuse('factorial', `The ${a.name} argument depends on a variable and cannot be bounded.`);
      if (d0 > 60) refuse('factorial', `${a.name} argument exceeds ${MAX_FACTORIAL}.`, { max: MAX_FACTORIAL });
      const n = constMagnitude(a.args[0]);
      if (n === null) refuse('factorial', `The ${a.name} argument cannot be bounded.`);
      if (n > MAX_FACTORIAL) refuse('factorial', `${a.name} argument exceeds ${MAX_FACTORIAL}.`, { max: MAX_FACTORIAL });
      // log10(n!) < n·log10(n) + 1; binomial(n, k) < 2^n
      return a.name === 'factorial' ? Math.ceil(n * Math.log10(Math.max(n, 2))) + 1 : Math.ceil(n * 0.302) + 1;
    }
    case 'exp':
    case 'sinh':
    case 'cosh': {
      if (!isConstant(a.args[0])) return d0;
      const m = constMagnitude(a.args[0]);
      if (m === null) refuse('exp', 'The argument of exp cannot be bounded.');
      return Math.ceil(m / Math.LN10) + 1 + d0;
    }
    case 'sin':
    case 'cos':
    case 'tanh':
    case 'asin':
    case 'acos':
    case 'atan':
      return Math.max(2, d0);
    default:
      return d0 + 1;
  }
}
