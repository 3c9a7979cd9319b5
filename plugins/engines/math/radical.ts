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

/** u·r^p, in K when it is there; else in the canonical form below when the numbers allow it */
export function root(u: K, r: Q, p: Q): K | Root {
  if (u.isZero()) return u;
  const k = positivePower(r, p);
  if (k) return u.mul(k);
  const c = canonical(r, p);
  if (!c) return new Root(u, r, p);
  const k2 = positivePower(c.r, c.p);
  return k2 ? u.mul(c.u).mul(k2) : new Root(u.mul(c.u), c.r, c.p);
}

const bits = (n: bigint): number => (n < 0n ? -n : n).toString(2).length;

/**
 * r^p·s^q (or r^p/s^q) for unlike radicands r, s > 0: both under one index L = lcm of the
 * denominators, (r^(pL)·s^(qL))^(1/L), then put in canonical form — 5^(1/2)·5^(1/3)·5^(1/6) = 5.
 * Null where the index or the numbers are too large.
 */
function unlikeProduct(x: Root, y: Root, divide: boolean): K | Root | null {
  const g = (m: bigint, n: bigint): bigint => (n === 0n ? m : g(n, m % n));
  const L = (x.p.d / g(x.p.d, y.p.d)) * y.p.d;
  if (L > 64n) return null;
  const ex = x.p.mul(Q.of(L)).n;
  const ey = y.p.mul(Q.of(L)).n;
  const size = (r: Q, e: bigint) => (bits(r.n) + bits(r.d)) * Number(e < 0n ? -e : e);
  if (size(x.r, ex) + size(y.r, ey) > 4096) return null;
  const rx = x.r.pow(Number(ex));
  const ry = y.r.pow(Number(ey));
  return root(divide ? x.u.div(y.u) : x.u.mul(y.u), divide ? rx.div(ry) : rx.mul(ry), Q.of(1n, L));
}
/** primes below 2000: the b-th powers of these are taken out of a radicand */
const PRIMES: readonly bigint[] = (() => {
  const sieve = new Uint8Array(2000);
  const out: bigint[] = [];
  for (let i = 2; i < 2000; i++) {
    if (sieve[i]) continue;
    out.push(BigInt(i));
    for (let j = i * i; j < 2000; j += i) sieve[j] = 1;
  }
  return out;
})();

/**
 * r^p = c·M^(1/e) with M a positive integer holding no b-th power of a prime below 2000 and no
 * smaller index possible — so like roots share one radicand: √20 = 2·√5, √(5/3) = (1/3)·√15,
 * ∛16 = 2·∛2, 4^(1/6) = ∛2. Value-preserving, so a radicand left unreduced (a large prime's power)
 * only loses a match, never makes one. Null where the numbers are too large to rewrite.
 */
function canonical(r: Q, p: Q): { u: K; r: Q; p: Q } | null {
  const b = p.d;
  if (b > 64n || bits(r.n) + bits(r.d) > 512) return null;
  const a = ((p.n % b) + b) % b;
  const whole = (p.n - a) / b;
  if (whole > 64n || whole < -64n) return null;
  // r^p = r^whole · (N/D)^(1/b) with N/D = r^a, and (N/D)^(1/b) = (N·D^(b−1))^(1/b) / D
  const m = r.pow(Number(a));
  let big = m.n * m.d ** (b - 1n);
  if (bits(big) > 4096) return null;
  let out = 1n;
  for (const q of PRIMES) {
    const qb = q ** b;
    if (qb > big) break;
    while (big % qb === 0n) {
      big /= qb;
      out *= q;
    }
  }
  let e = b;
  for (let g = 2n; g <= e; g++) {
    if (e % g !== 0n) continue;
    const t = iroot(big, Number(g));
    if (t !== null) {
      big = t;
      e /= g;
      g = 1n;
    }
  }
  return { u: K.fromQ(r.pow(Number(whole)).mul(Q.of(out, m.d))), r: Q.of(big), p: Q.of(1n, e) };
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
  if (a.r && b.r && !a.r.eq(b.r)) return unlikeProduct(a as Root, b as Root, divide);
  const u = divide ? a.u.div(b.u) : a.u.mul(b.u);
  return root(u, (a.r ?? b.r)!, divide ? a.p.sub(b.p) : a.p.add(b.p));
}
