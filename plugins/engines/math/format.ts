import { plain } from './mathjs.js';
import type { K } from './field.js';
import type { Approx } from './approx.js';
import { show, type Ast } from './ast.js';

const mf = plain;
const SIMPLIFY_MAX_CHARS = 60;

/**
 * Wire form of a computed value: a JSON number only when that number is exactly the value
 * (integers within 2^53, decimals that round-trip), otherwise a string — the exact form (`1/3`,
 * `sqrt(2)/2`, a 400-digit integer) or, for values without one, 50 significant digits.
 */
export function exactValue(v: K): { value: number | string; exact: string; approx: number | null; complex: boolean } {
  const r = v.rational();
  const z = v.toComplex();
  if (r) {
    const dec = r.toDecimal();
    const asNumber = dec !== null && String(Number(dec)) === dec ? Number(dec) : null;
    return { value: asNumber ?? dec ?? r.toString(), exact: dec ?? r.toString(), approx: r.toNumber(), complex: false };
  }
  const complex = !v.isReal();
  return { value: v.toString(), exact: v.toString(), approx: complex ? null : z.re, complex };
}

export function approxValue(a: Approx): { value: string; approx: number | null; complex: boolean } {
  if (a.kind === 'real') return { value: a.value.toSignificantDigits(50).toString(), approx: a.value.toNumber(), complex: false };
  if (a.im === 0) return { value: String(a.re), approx: a.re, complex: false };
  return { value: `${a.re} ${a.im < 0 ? '-' : '+'} ${Math.abs(a.im)}i`, approx: null, complex: true };
}

/** best-effort readable form of a symbolic expression; mathjs simplify only on short input (it is slow) */
export function simplifiedText(a: Ast): string {
  const text = show(a);
  if (text.length > SIMPLIFY_MAX_CHARS) return text;
  try {
    return mf.simplify(text).toString();
  } catch {
    return text;
  }
}
