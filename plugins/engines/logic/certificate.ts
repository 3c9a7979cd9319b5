import type { Formula, Term } from './dsl.js';
import { type Q, add, cmp, mul, q } from './evaluate.js';
import { conjuncts, literalAtom, type Linear } from './shape.js';

/**
 * An UNSAT answer that does not come from z3 must carry its contradiction, and the engine checks
 * that contradiction here, independently of whatever search found it. A linear-combination
 * certificate (Farkas) names top-level conjuncts and a multiplier for each: every conjunct is a
 * linear atom, read as `L ≤ 0` or `L < 0`; over Int with integer coefficients `L < 0` is `L + 1 ≤ 0`.
 * Multipliers are ≥ 0 (an EQ may take either sign). When the weighted sum cancels every variable and
 * leaves `K ≤ 0` with K > 0 (or `K < 0` with K ≥ 0), no assignment satisfies the conjunction,
 * because every assignment satisfying all named conjuncts satisfies their weighted sum.
 */
export interface Combination {
  /** index of the conjunct in `conjuncts(formula.body)` and its multiplier (an integer) */
  steps: Array<{ part: number; times: bigint }>;
}

/** The wire form of a checked certificate: the atoms, their multipliers, and the sum they give. */
export interface Contradiction {
  rule: 'linear_combination';
  atoms: Array<{ atom: string; times: string }>;
  sum: string;
}

/** `L ≤ 0` (strict: `L < 0`) in integer coefficients, tightened over Int. */
interface Normal {
  coefs: Map<string, Q>;
  constant: Q;
  strict: boolean;
}

function scaled(l: Linear, k: Q): Linear {
  const coefs = new Map<string, Q>();
  for (const [v, c] of l.coefs) coefs.set(v, mul(c, k));
  return { coefs, constant: mul(l.constant, k) };
}

function normal(t: Term, sorts: Map<string, string>, sign: 1n | -1n): Normal | null {
  const a = literalAtom(t);
  if (!a || a.op === 'NEQ') return null;
  // form ⋈ 0: LTE/LT keep the sign, GTE/GT flip it; EQ goes either way (the multiplier's sign)
  const flip = a.op === 'GTE' || a.op === 'GT' ? -1n : 1n;
  if (a.op !== 'EQ' && sign < 0n) return null;
  const l = scaled(a.form, q(flip * sign));
  let strict = a.op === 'LT' || a.op === 'GT';
  let den = 1n;
  for (const c of [...l.coefs.values(), l.constant]) den = (den * c.d) / gcd(den, c.d);
  const ints = scaled(l, q(den));
  if (strict && [...ints.coefs.keys()].every((v) => sorts.get(v) === 'Int')) {
    // Σ c·x + k < 0 with integer c, k and Int x: the left side is an integer, so it is ≤ −1
    ints.constant = add(ints.constant, q(1n));
    strict = false;
  }
  return { coefs: ints.coefs, constant: ints.constant, strict };
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

/**
 * The certificate's contradiction, or null when it does not refute the formula. The formula must
 * be the conjunction the certificate speaks of; nothing but its named conjuncts is trusted.
 */
export function checkCombination(f: Formula, cert: Combination, canonicalOf: (t: Term) => string): Contradiction | null {
  const parts = conjuncts(f.body);
  const sorts = new Map(f.vars.map((v) => [v.name, v.sort as string]));
  const coefs = new Map<string, Q>();
  let constant = q(0n);
  let strict = false;
  if (!cert.steps.length) return null;
  for (const { part, times } of cert.steps) {
    const t = parts[part];
    if (t === undefined || times === 0n) return null;
    const n = normal(t, sorts, times < 0n ? -1n : 1n);
    if (!n) return null;
    const k = q(times < 0n ? -times : times);
    for (const [v, c] of n.coefs) {
      const s = add(coefs.get(v) ?? q(0n), mul(c, k));
      if (s.n === 0n) coefs.delete(v);
      else coefs.set(v, s);
    }
    constant = add(constant, mul(n.constant, k));
    strict ||= n.strict;
  }
  if (coefs.size) return null;
  const c = cmp(constant, q(0n));
  if (!(c > 0 || (c === 0 && strict))) return null;
  const show = constant.d === 1n ? constant.n.toString() : `${constant.n}/${constant.d}`;
  return {
    rule: 'linear_combination',
    atoms: cert.steps.map(({ part, times }) => ({ atom: canonicalOf(parts[part]), times: times.toString() })),
    sum: `${show} ${strict ? '<' : '<='} 0`,
  };
}
