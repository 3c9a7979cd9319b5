import { Q, type K } from './field.js';
import { Dec, evalDecChecked, kChecked, kToDec, NeedComplex, settled, type Approx, type Checked } from './approx.js';
import { EvalError, Undecided } from './exact.js';
import type { Ast } from './ast.js';
import { C, MathRefusal } from './errors.js';

export type PrecisionMode = 'decimal' | 'float';

export interface ToleranceOutcome {
  is_correct: boolean;
  calculated_value: string;
  expected_value: string;
  difference: string;
  tolerance: string;
  max_allowed_tolerance: string;
  precision_mode: PrecisionMode;
}

/** longest number text and largest decimal exponent read (past them: invalid, never a billion-digit toFixed) */
const NUMBER_TEXT_MAX = 1000;
const EXPONENT_MAX = 10_000;
const DOUBLE_MAX = new Dec(Number.MAX_VALUE);

/**
 * A caller's number, exact as written (issue 12, item 3): strings are exact decimals; a JSON number
 * is read from its text in the body (`text`, found by the route) and only without it through its
 * shortest decimal form. `float` records that it came as a JSON number.
 */
function readNumber(v: unknown, text?: string): { dec: InstanceType<typeof Dec>; mode: PrecisionMode } | null {
  let src: string;
  let mode: PrecisionMode = 'decimal';
  if (typeof v === 'number') {
    if (!Number.isFinite(v) && text === undefined) return null;
    src = text ?? String(v);
    mode = 'float';
    // without the body's text (a composite route's item), a double is trusted only where it is
    // certainly what was written: 15 significant digits; beyond that the claim must be a string
    if (text === undefined && src.replace(/^-|e.*$|\./gi, '').replace(/^0+/, '').replace(/0+$/, '').length > 15) return null;
  } else if (typeof v === 'string') src = v.trim();
  else return null;
  if (src.length > NUMBER_TEXT_MAX || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(src)) return null;
  const dec = new Dec(src);
  if (!dec.isFinite() || (!dec.isZero() && Math.abs(dec.e) > EXPONENT_MAX)) return null;
  return { dec, mode };
}

const ONE_PERCENT = new Dec('0.01');

/**
 * Expected-value check (spec rules 3–4). The allowed tolerance is max(0.01, |calculated|·0.01);
 * a larger, negative, NaN, infinite or non-numeric tolerance refuses. Rational results compare
 * exactly; other real values only where their 50- and 90-digit forms agree on which side of the
 * bound they lie (`checked`, see `settled`): a 50-digit value can be off by far more than 1e-50 when
 * large terms cancel, and an answer from it alone was a proof of whatever the rounding said.
 */
export function checkExpected(
  value: { exact: K | null; approx: Approx | null; checked?: Checked | null },
  expectedRaw: unknown,
  toleranceRaw: unknown,
  texts: { expected_value?: string; tolerance?: string } = {},
): ToleranceOutcome {
  const expected = readNumber(expectedRaw, texts.expected_value);
  if (!expected) {
    throw new MathRefusal(C.invalidExpected, 'expected_value must be a finite number or numeric string.', {
      is_correct: false,
      error: 'invalid_expected_value',
    });
  }
  const read = toleranceRaw === undefined || toleranceRaw === null ? { dec: new Dec(0), mode: expected.mode } : readNumber(toleranceRaw, texts.tolerance);
  // a tolerance beyond the double range (what JSON.parse makes ±Infinity) is invalid, as Infinity is
  const tol = read && read.dec.abs().gt(DOUBLE_MAX) ? null : read;

  // calculated value: exact rational, 50-digit real, or double complex
  let calc: InstanceType<typeof Dec> | null = null;
  let exactQ: Q | null = value.exact?.rational() ?? null;
  let complex: { re: number; im: number; err: number } | null = null;
  if (value.exact && value.exact.isReal()) calc = kToDec(value.exact);
  else if (value.exact) complex = value.exact.toComplex();
  else if (value.approx?.kind === 'real') calc = value.approx.value;
  else if (value.approx) complex = { re: value.approx.re, im: value.approx.im, err: value.approx.err };

  let mode: PrecisionMode = expected.mode === 'float' || tol?.mode === 'float' || complex ? 'float' : 'decimal';
  const magnitude = calc ? calc.abs() : new Dec(Math.hypot(complex!.re, complex!.im));
  const calcText = exactQ ? (exactQ.toDecimal() ?? calc!.toSignificantDigits(50).toString()) : calc ? calc.toSignificantDigits(50).toString() : `${complex!.re} ${complex!.im < 0 ? '-' : '+'} ${Math.abs(complex!.im)}i`;
  const maxAllowed = Dec.max(ONE_PERCENT, magnitude.times(ONE_PERCENT));
  const tolQ = tol && !tol.dec.isNeg() ? Q.parseDecimal(tol.dec.toFixed())! : null;

  if (!tol || !tolQ || !withinMax(tolQ, tol.dec, exactQ, maxAllowed, complex)) {
    const reason = !tol
      ? 'Tolerance must be a finite number within the double range.'
      : tol.dec.isNeg()
        ? 'Tolerance must not be negative.'
        : tol.dec.gt(maxAllowed)
          ? 'Requested tolerance exceeds the maximum allowed.'
          : 'Requested tolerance is not provably within the maximum allowed (the value is known only to its rounding).';
    throw new MathRefusal(tol && !tol.dec.isNeg() ? C.tolerance : C.invalidTolerance, reason, {
      is_correct: false,
      error: reason,
      requested_tolerance: (typeof toleranceRaw === 'string' ? toleranceRaw : texts.tolerance ?? String(toleranceRaw)).slice(0, 100),
      max_allowed_tolerance: maxText(exactQ, maxAllowed),
      calculated_value: calcText,
      precision_mode: mode,
    });
  }

  let diffText: string;
  let ok: boolean;
  if (exactQ) {
    const e = Q.parseDecimal(expected.dec.toFixed())!;
    const t = tolQ;
    let d = exactQ.sub(e);
    if (d.sign() < 0) d = d.neg();
    ok = d.cmp(t) <= 0;
    diffText = d.toDecimal() ?? new Dec(d.n.toString()).div(d.d.toString()).toSignificantDigits(50).toString();
  } else if (calc) {
    const d = calc.minus(expected.dec).abs();
    const c = value.checked;
    // |value − expected| − tolerance: its sign is the answer, so it must be settled at both precisions
    const gap = (v: Dec) => v.minus(expected.dec).abs().minus(tol.dec);
    if (!c || !settled(gap(c.v50), gap(c.v90), c.scale)) {
      throw new MathRefusal(C.numericOnly, 'The value is too close to the tolerance bound to decide numerically (at 50 and 90 digits).', {
        is_correct: false,
        error: 'undecidable_at_precision',
        calculated_value: calcText,
        precision_mode: mode,
      });
    }
    ok = gap(c.v50).isNeg();
    diffText = d.toSignificantDigits(50).toString();
  } else {
    mode = 'float';
    const e = expected.dec.toNumber();
    const t = tol.dec.toNumber();
    const d = Math.hypot(complex!.re - e, complex!.im);
    // a double value is trusted only beyond its error bound (complex.ts) and the doubles' rounding here
    if (Math.abs(d - t) <= 2 * complex!.err + 4 * 2 ** -52 * (Math.abs(e) + t + d)) {
      throw new MathRefusal(C.numericOnly, 'The value is too close to the tolerance bound to decide in double precision.', {
        is_correct: false,
        error: 'undecidable_at_precision',
        calculated_value: calcText,
        precision_mode: mode,
      });
    }
    ok = d <= t;
    diffText = String(d);
  }
  return {
    is_correct: ok,
    calculated_value: calcText,
    expected_value: expected.dec.toString(),
    difference: diffText,
    tolerance: tol.dec.toString(),
    max_allowed_tolerance: maxText(exactQ, maxAllowed),
    precision_mode: mode,
  };
}

const HUNDREDTH = Q.of(1n, 100n);
/** relative error of a 50-digit bound, with room (as `settled`'s margin) */
const BOUND_NOISE = new Dec('1e-30');

/**
 * Whether the tolerance is at most max(0.01, |calculated|·0.01). For a rational value the bound is
 * exact: at 50 digits, 2^200·0.01 rounded up and admitted a tolerance above it. For other values the
 * bound is rounded, so a tolerance above 0.01 must clear it by more than its rounding error.
 */
function withinMax(tol: Q, tolDec: Dec, exactQ: Q | null, rounded: Dec, complex: { re: number; im: number; err: number } | null): boolean {
  if (tol.cmp(HUNDREDTH) <= 0) return true;
  if (exactQ) {
    const m = exactQ.sign() < 0 ? exactQ.neg() : exactQ;
    return tol.cmp(m.mul(HUNDREDTH)) <= 0;
  }
  if (complex) {
    // |z| is known to within err (complex.ts), and hypot and the product round
    const low = (Math.hypot(complex.re, complex.im) - complex.err) * 0.01 * (1 - 8 * 2 ** -52);
    return tolDec.lte(low);
  }
  return tolDec.lte(rounded.times(new Dec(1).minus(BOUND_NOISE)));
}

/** the bound as written: exact for a rational value when it is a finite decimal */
function maxText(exactQ: Q | null, rounded: Dec): string {
  if (!exactQ) return rounded.toString();
  const m = exactQ.sign() < 0 ? exactQ.neg() : exactQ;
  const bound = m.mul(HUNDREDTH);
  return (bound.cmp(HUNDREDTH) <= 0 ? '0.01' : bound.toDecimal()) ?? rounded.toString();
}

/** a real value that is not rational, at 50 and 90 digits (null: not real, or not computable at 90) */
export function checkedValue(expr: Ast, ex: K | null, ap: Approx | null): Checked | null {
  if (ex) return ex.isReal() && !ex.isRational() ? kChecked(ex) : null;
  if (ap?.kind !== 'real') return null;
  try {
    return evalDecChecked(expr, null);
  } catch (err) {
    if (err instanceof EvalError || err instanceof NeedComplex || err instanceof Undecided) return null; // the check refuses
    throw err;
  }
}

