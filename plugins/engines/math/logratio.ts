import { Q } from './field.js';
import type { Ast } from './ast.js';

const LOGS: ReadonlySet<string> = new Set(['ln', 'log', 'log10']);
/** largest denominator tried for the exponent p/q */
const MAX_Q = 64;
/** bound on the bits of x^q and y^p, so the exact check stays cheap */
const MAX_BITS = 4096n;

const bits = (n: bigint): bigint => BigInt((n < 0n ? -n : n).toString(2).length);

function lnBig(n: bigint): number {
  const b = Number(bits(n));
  return b <= 1000 ? Math.log(Number(n)) : Math.log(Number(n >> BigInt(b - 53))) + (b - 53) * Math.LN2;
}

/**
 * `log(x) / log(y)` (the same logarithm on both sides: `\log_2 8` is read as ln 8 / ln 2) for
 * positive rationals x, y ≠ 1: the rational p/q with x^q = y^p, verified exactly in integers;
 * null when there is none within the bounds. A double only proposes the candidate — the continued
 * fraction of ln x / ln y — the equality x^q = y^p is what is proven.
 */
export function logRatio(a: Ast, b: Ast, rational: (x: Ast) => Q | null): Q | null {
  if (a.k !== 'fn' || b.k !== 'fn' || a.name !== b.name || !LOGS.has(a.name)) return null;
  const x = rational(a.args[0]);
  const y = rational(b.args[0]);
  if (!x || !y || x.sign() <= 0 || y.sign() <= 0 || y.eq(Q.ONE)) return null;
  if (x.eq(Q.ONE)) return Q.ZERO;
  const est = (lnBig(x.n) - lnBig(x.d)) / (lnBig(y.n) - lnBig(y.d));
  if (!Number.isFinite(est)) return null;
  const sign = est < 0 ? -1n : 1n;
  // convergents h/k of the continued fraction of |est|
  let [h0, h1, k0, k1] = [0n, 1n, 1n, 0n];
  let r = Math.abs(est);
  for (let step = 0; step < 20; step++) {
    const t = Math.floor(r);
    [h0, h1] = [h1, BigInt(t) * h1 + h0];
    [k0, k1] = [k1, BigInt(t) * k1 + k0];
    if (k1 > BigInt(MAX_Q)) return null;
    const p = sign * h1;
    const q = k1;
    const cheap = (bits(x.n) + bits(x.d)) * q <= MAX_BITS && (bits(y.n) + bits(y.d)) * h1 <= MAX_BITS;
    if (cheap && x.pow(Number(q)).eq(y.pow(Number(p)))) return Q.of(p, q);
    const f = r - t;
    if (f < 1e-12) return null;
    r = 1 / f;
  }
  return null;
}
