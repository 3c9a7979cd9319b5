import { C, MathRefusal } from '../errors.js';
import type { LNode } from './tree.js';

/** the matrix environments read as matrices; `vmatrix` (a determinant), `cases`, `array` are refused */
export const MATRICES: ReadonlySet<string> = new Set(['pmatrix', 'bmatrix', 'matrix', 'smallmatrix']);

/**
 * `\sqrt[n]{x}` for an integer index n ≥ 2: 2 is √, 3 the real cube root (`\sqrt[3]{-8}` = −2, as
 * written), an even n the principal root x^(1/n); an odd n ≥ 5 is refused — real or principal root
 * is not said, and the two differ for a negative radicand.
 */
export function rootOf(n: string, x: LNode): LNode {
  if (n === '2') return { k: 'fn', name: 'sqrt', args: [x] };
  if (n === '3') return { k: 'fn', name: 'cbrt', args: [x] };
  if (BigInt(n) % 2n === 1n) {
    throw new MathRefusal(C.disallowed, `Disallowed construct in expression: odd root of degree ${n.slice(0, 10)} (real or principal root?): write x^{1/${n.slice(0, 10)}} for the principal root.`, { construct: 'odd root' });
  }
  return { k: 'op', op: '^', a: x, b: { k: 'op', op: '/', a: { k: 'num', v: '1' }, b: { k: 'num', v: n } } };
}
