import { C, MathRefusal } from './errors.js';
import { exact, EvalError } from './exact.js';
import { evalDec, NeedComplex } from './approx.js';
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
    if (err instanceof NeedComplex) return null;
    return null;
  }
}

/**
 * Compute-cost gate, run on the tree before anything is evaluated. Returns an upper estimate of the
 * decimal digits of the value (numerator plus denominator for exact rationals); every operation adds
 * or multiplies these estimates, so nested bases (`(10^300)^10000`) are caught without computing.
 */
export function costDigits(a: Ast): number {
  const s = digits(a);
  if (s > MAX_RESULT_DIGITS) refuse('result_digits', `Estimated result exceeds ${MAX_RESULT_DIGITS} digits.`, { max: MAX_RESULT_DIGITS });
  return s;
}

function digits(a: Ast): number {
  let s: number;
  switch (a.k) {
    case 'num':
      s = a.q.digits();
      break;
    case 'var':
      s = VAR_DIGITS;
      break;
    case 'const':
      s = 1;
      break;
    case 'neg':
      s = digits(a.a);
      break;
    case 'add':
    case 'sub':
      s = digits(a.a) + digits(a.b) + 1;
      break;
    case 'mul':
    case 'div':
      s = digits(a.a) + digits(a.b);
      break;
    case 'pow':
      s = powDigits(a.a, a.b);
      break;
    case 'fn':
      s = fnDigits(a);
      break;
  }
  if (s > MAX_RESULT_DIGITS) refuse('result_digits', `Estimated result exceeds ${MAX_RESULT_DIGITS} digits.`, { max: MAX_RESULT_DIGITS });
  return s;
}

function powDigits(base: Ast, exponent: Ast): number {
  if (!isConstant(exponent)) refuse('exponent', 'An exponent that depends on a variable cannot be bounded.');
  const ed = digits(exponent);
  // an exponent needing more than 6 digits is above the limit whatever its exact value (towers: 9^9^9, 2^(9^9))
  if (ed > 60) refuse('exponent', `Exponent exceeds ${MAX_EXPONENT}.`, { max: MAX_EXPONENT });
  const e = constMagnitude(exponent);
  if (e === null) refuse('exponent', 'The exponent cannot be bounded.');
  if (e > MAX_EXPONENT) refuse('exponent', `Exponent exceeds ${MAX_EXPONENT}.`, { max: MAX_EXPONENT });
  return Math.max(1, digits(base) * Math.max(1, Math.ceil(e)));
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
