import { K, Q, expIPi, iroot, sqrtQ } from './field.js';

/**
 * u·r^p with r > 0 and p rational, u in K and not zero: a root K cannot hold (√5, 2^(1/3)), kept
 * exact so that powers and products of it that are back in K are found exactly. sqrt(5)^2 was
 * evaluated in decimals as 5.000…01, and factorial of that was refused as outside its domain.
 * r^p is the positive real root, so the arithmetic below has no branch to choose.
 */
export class Root {
  constructor(
    readonly u: K,
    readonly r: Q,
    readonly p: Q,
  ) {}
}

/** r^p for r > 0 when it is rational, else null */
function rationalPower(r: Q, p: Q): Q | null {
  const q = Number(p.d);
  const rn = iroot(r.n, q);
  const rd = iroot(r.d, q);
  return rn !== null && rd !== null ? Q.of(rn, rd).pow(Number(p.n)) : null;
}

/**
 * r^p in K for r > 0 (the positive root), or null. Complete: a positive x in K with a rational power
 * has x² rational (each automorphism of K ∩ ℝ = Q(√2, √3) maps x to ±x), so x = √(r^(2p)). A Root is
 * therefore never in K, never rational, never an integer.
 */
export function positivePower(r: Q, p: Q): K | null {
  const direct = rationalPower(r, p);
  if (direct) return K.fromQ(direct);
  const square = rationalPower(r, p.add(p));
  return square && sqrtQ(square);
}

/** u·r^p, in K when it is there */
export function root(u: K, r: Q, p: Q): K | Root {
  if (u.isZero()) return u;
  const k = positivePower(r, p);
  return k ? u.mul(k) : new Root(u, r, p);
}

/**
 * The principal value of b^p for rational b ≠ 0 and non-integer p: b^p = e^{iπp}·|b|^p for b < 0
 * (in K when 12p is an integer). Null where it is not real in the real domain or not held exactly.
 */
export function rationalRoot(b: Q, p: Q, real: boolean): K | Root | null {
  if (b.sign() > 0) return root(K.int(1), b, p);
  if (real) return null;
  const u = expIPi(p);
  return u && root(u, b.neg(), p);
}

/** the real cube root of rational b ≠ 0 (cbrt is real on the real line, not the principal root) */
export function cubeRoot(b: Q): K | Root {
  const third = Q.of(1n, 3n);
  return b.sign() > 0 ? root(K.int(1), b, third) : root(K.int(-1), b.neg(), third);
}

/** x^e for a root x and rational e: (u·r^p)^n = u^n·r^(pn) for integer n; otherwise only for u > 0 */
export function rootPower(x: Root, e: Q): K | Root | null {
  if (e.isInt()) return root(x.u.pow(Number(e.n)), x.r, x.p.mul(e));
  const u = x.u.rational();
  if (!u || u.sign() <= 0) return null;
  const ue = positivePower(u, e);
  return ue && root(ue, x.r, x.p.mul(e));
}

/** x·y or x/y where one is a root: exact when both roots have the same radicand */
export function rootProduct(x: K | Root, y: K | Root, divide: boolean): K | Root | null {
  if (x instanceof K && y instanceof K) return divide ? x.div(y) : x.mul(y);
  const a = x instanceof K ? { u: x, r: null, p: Q.ZERO } : x;
  const b = y instanceof K ? { u: y, r: null, p: Q.ZERO } : y;
  if (a.r && b.r && !a.r.eq(b.r)) return null;
  const u = divide ? a.u.div(b.u) : a.u.mul(b.u);
  return root(u, (a.r ?? b.r)!, divide ? a.p.sub(b.p) : a.p.add(b.p));
}
