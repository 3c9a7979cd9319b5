/**
 * Exact arithmetic. `Q` is a BigInt rational; `K` is the number field Q(√2, √3, i), which holds
 * every rational, i, the square roots of 2·k², 3·k², 6·k², and e^{iπq} for q ∈ (1/12)Z — exactly the
 * constants the identity engine meets (sin(π/4) = √2/2, cos(π/6) = √3/2, tan(π/4) = 1). Zero is
 * decided exactly because {1, √2, √3, √6} × {1, i} is a basis over Q.
 */
export class Q {
  private constructor(
    readonly n: bigint,
    readonly d: bigint,
  ) {}

  static readonly ZERO = new Q(0n, 1n);
  static readonly ONE = new Q(1n, 1n);

  static of(n: bigint, d: bigint = 1n): Q {
    if (d === 0n) throw new RangeError('zero denominator');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    if (n === 0n) return Q.ZERO;
    const g = gcd(n < 0n ? -n : n, d);
    return g === 1n ? new Q(n, d) : new Q(n / g, d / g);
  }

  /** exact value of a decimal literal such as `-12.5e-3` */
  static parseDecimal(text: string): Q | null {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
    const frac = m[3] ?? '';
    let n = BigInt((m[2] || '0') + frac);
    let exp = (m[4] ? Number(m[4]) : 0) - frac.length;
    if (!Number.isSafeInteger(exp) || Math.abs(exp) > 100_000) return null;
    if (m[1] === '-') n = -n;
    return exp >= 0 ? Q.of(n * 10n ** BigInt(exp)) : Q.of(n, 10n ** BigInt(-exp));
  }

  isZero(): boolean {
    return this.n === 0n;
  }
  isInt(): boolean {
    return this.d === 1n;
  }
  sign(): number {
    return this.n === 0n ? 0 : this.n < 0n ? -1 : 1;
  }
  add(o: Q): Q {
    if (this.n === 0n) return o;
    if (o.n === 0n) return this;
    return this.d === o.d ? Q.of(this.n + o.n, this.d) : Q.of(this.n * o.d + o.n * this.d, this.d * o.d);
  }
  sub(o: Q): Q {
    return this.add(o.neg());
  }
  mul(o: Q): Q {
    if (this.n === 0n || o.n === 0n) return Q.ZERO;
    return Q.of(this.n * o.n, this.d * o.d);
  }
  div(o: Q): Q {
    if (o.n === 0n) throw new RangeError('division by zero');
    return Q.of(this.n * o.d, this.d * o.n);
  }
  neg(): Q {
    return this.n === 0n ? this : new Q(-this.n, this.d);
  }
  scale(k: bigint): Q {
    return Q.of(this.n * k, this.d);
  }
  eq(o: Q): boolean {
    return this.n === o.n && this.d === o.d;
  }
  cmp(o: Q): number {
    const x = this.n * o.d - o.n * this.d;
    return x === 0n ? 0 : x < 0n ? -1 : 1;
  }
  pow(k: number): Q {
    if (k < 0) return Q.ONE.div(this).pow(-k);
    return Q.of(this.n ** BigInt(k), this.d ** BigInt(k));
  }
  toString(): string {
    return this.d === 1n ? this.n.toString() : `${this.n}/${this.d}`;
  }
  /** finite decimal string when the denominator is 2^a·5^b, else null */
  toDecimal(): string | null {
    let d = this.d;
    let twos = 0;
    let fives = 0;
    while (d % 2n === 0n) (d /= 2n), twos++;
    while (d % 5n === 0n) (d /= 5n), fives++;
    if (d !== 1n) return null;
    const k = Math.max(twos, fives);
    const scaled = (this.n * 10n ** BigInt(k)) / this.d;
    if (k === 0) return scaled.toString();
    const neg = scaled < 0n;
    const digits = (neg ? -scaled : scaled).toString().padStart(k + 1, '0');
    const s = `${digits.slice(0, -k)}.${digits.slice(-k)}`.replace(/\.?0+$/, '');
    return (neg ? '-' : '') + s;
  }
  toNumber(): number {
    return Number(this.n) / Number(this.d);
  }
  /** decimal digits of numerator plus denominator: the size the cost gate reasons about */
  digits(): number {
    return (this.n < 0n ? -this.n : this.n).toString().length + this.d.toString().length;
  }
}

export function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** basis index bits: 1 = √2, 2 = √3, 4 = i; the product of two basis elements is ±(2|3|6)·basis[a xor b] */
function productFactor(a: number, b: number): bigint {
  let f = 1n;
  if (a & b & 1) f *= 2n;
  if (a & b & 2) f *= 3n;
  if (a & b & 4) f *= -1n;
  return f;
}

export class K {
  private constructor(readonly c: readonly Q[]) {}

  static fromQ(q: Q): K {
    const c = new Array<Q>(8).fill(Q.ZERO);
    c[0] = q;
    return new K(c);
  }
  static int(n: number | bigint): K {
    return K.fromQ(Q.of(BigInt(n)));
  }
  static basis(mask: number, q: Q = Q.ONE): K {
    const c = new Array<Q>(8).fill(Q.ZERO);
    c[mask] = q;
    return new K(c);
  }
  static readonly I = K.basis(4);
  static readonly SQRT2 = K.basis(1);
  static readonly SQRT3 = K.basis(2);

  isZero(): boolean {
    return this.c.every((q) => q.isZero());
  }
  isRational(): boolean {
    for (let m = 1; m < 8; m++) if (!this.c[m].isZero()) return false;
    return true;
  }
  isReal(): boolean {
    for (let m = 4; m < 8; m++) if (!this.c[m].isZero()) return false;
    return true;
  }
  rational(): Q | null {
    return this.isRational() ? this.c[0] : null;
  }
  add(o: K): K {
    if (this.isRational() && o.isRational()) return K.fromQ(this.c[0].add(o.c[0]));
    return new K(this.c.map((q, m) => q.add(o.c[m])));
  }
  sub(o: K): K {
    if (this.isRational() && o.isRational()) return K.fromQ(this.c[0].sub(o.c[0]));
    return new K(this.c.map((q, m) => q.sub(o.c[m])));
  }
  neg(): K {
    return new K(this.c.map((q) => q.neg()));
  }
  mul(o: K): K {
    if (this.isRational() && o.isRational()) return K.fromQ(this.c[0].mul(o.c[0]));
    const out = new Array<Q>(8).fill(Q.ZERO);
    for (let a = 0; a < 8; a++) {
      if (this.c[a].isZero()) continue;
      for (let b = 0; b < 8; b++) {
        if (o.c[b].isZero()) continue;
        out[a ^ b] = out[a ^ b].add(this.c[a].mul(o.c[b]).scale(productFactor(a, b)));
      }
    }
    return new K(out);
  }
  /** the automorphism that negates the generator of `bit` (√2, √3 or i) */
  private conj(bit: number): K {
    return new K(this.c.map((q, m) => (m & bit ? q.neg() : q)));
  }
  inv(): K {
    if (this.isZero()) throw new RangeError('division by zero');
    if (this.isRational()) return K.fromQ(Q.ONE.div(this.c[0]));
    // a·σ1(a) is fixed by σ1, then by σ2, then by σ4: the product of all conjugates is rational
    const s1 = this.conj(1);
    const b = this.mul(s1);
    const s2 = b.conj(2);
    const c = b.mul(s2);
    const s4 = c.conj(4);
    const norm = c.mul(s4).c[0];
    return s1.mul(s2).mul(s4).scaleQ(Q.ONE.div(norm));
  }
  div(o: K): K {
    if (o.isRational() && this.isRational()) return K.fromQ(this.c[0].div(o.c[0]));
    return this.mul(o.inv());
  }
  scaleQ(q: Q): K {
    return new K(this.c.map((x) => x.mul(q)));
  }
  pow(k: number): K {
    if (k < 0) return this.inv().pow(-k);
    if (this.isRational()) return K.fromQ(this.c[0].pow(k));
    let result = K.int(1);
    let base: K = this;
    while (k > 0) {
      if (k & 1) result = result.mul(base);
      base = base.mul(base);
      k >>= 1;
    }
    return result;
  }
  eq(o: K): boolean {
    return this.sub(o).isZero();
  }
  /** real and imaginary parts as doubles, and a bound on their error (terms can cancel) */
  toComplex(): { re: number; im: number; err: number } {
    const w = [1, Math.SQRT2, Math.sqrt(3), Math.sqrt(6)];
    let re = 0;
    let im = 0;
    let err = 0;
    for (let m = 0; m < 8; m++) {
      const v = this.c[m].toNumber() * w[m & 3];
      if (m & 4) im += v;
      else re += v;
      err += Math.abs(v) * 8 * 2 ** -52;
    }
    return { re, im, err };
  }
  /** `3/2 + sqrt(2)/2 - 1/3*i*sqrt(6)` style, or the bare rational */
  toString(): string {
    const names = ['', 'sqrt(2)', 'sqrt(3)', 'sqrt(6)'];
    const parts: string[] = [];
    for (let m = 0; m < 8; m++) {
      const q = this.c[m];
      if (q.isZero()) continue;
      const unit = [m & 4 ? 'i' : '', names[m & 3]].filter(Boolean).join('*');
      const coef = q.toString();
      parts.push(unit === '' ? coef : coef === '1' ? unit : coef === '-1' ? `-${unit}` : `${coef}*${unit}`);
    }
    if (parts.length === 0) return '0';
    return parts.join(' + ').replace(/\+ -/g, '- ');
  }
  /** (part without i, part with the i factored out): cos and sin from e^{iθ} */
  split(): [K, K] {
    const re = this.c.map((q, m) => (m & 4 ? Q.ZERO : q));
    const im = this.c.map((_, m) => (m & 4 ? Q.ZERO : this.c[m | 4]));
    return [new K(re), new K(im)];
  }
  /** complex conjugate */
  conjI(): K {
    return this.conj(4);
  }
  coefficients(): readonly Q[] {
    return this.c;
  }
}

/**
 * √r for rational r as an element of K when r = s²·m with m ∈ {1, 2, 3, 6} (negative r gives i·√|r|),
 * else null. Returns null rather than approximating: callers fall back to numeric evaluation.
 */
export function sqrtQ(r: Q): K | null {
  if (r.isZero()) return K.fromQ(Q.ZERO);
  const neg = r.sign() < 0;
  const a = neg ? r.neg() : r;
  // √(n/d) = √(n·d)/d
  const nd = a.n * a.d;
  for (const [m, mask] of [
    [1n, 0],
    [2n, 1],
    [3n, 2],
    [6n, 3],
  ] as const) {
    if (nd % m !== 0n) continue;
    const s = isqrtExact(nd / m);
    if (s !== null) return K.basis(mask | (neg ? 4 : 0), Q.of(s, a.d));
  }
  return null;
}

/** exact integer square root, or null when n is not a perfect square */
export function isqrtExact(n: bigint): bigint | null {
  const r = iroot(n, 2);
  return r;
}

/**
 * exact integer k-th root (k ≥ 2), or null. Newton's method from a power-of-two overestimate
 * decreases monotonically to ⌊n^(1/k)⌋, so it stays fast for the 100,000-digit values the gate allows.
 */
export function iroot(n: bigint, k: number): bigint | null {
  if (n < 0n) {
    if (k % 2 === 0) return null;
    const r = iroot(-n, k);
    return r === null ? null : -r;
  }
  if (n < 2n) return n;
  const K1 = BigInt(k - 1);
  const KB = BigInt(k);
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / k));
  for (;;) {
    const y = (K1 * x + n / x ** K1) / KB;
    if (y >= x) break;
    x = y;
  }
  return x ** KB === n ? x : null;
}

/** e^{iπq} in K for q ∈ (1/12)Z, else null */
export function expIPi(q: Q): K | null {
  const twelfths = q.mul(Q.of(12n));
  if (!twelfths.isInt()) return null;
  const k = Number(((twelfths.n % 24n) + 24n) % 24n);
  const half = Q.of(1n, 2n);
  const quarter = Q.of(1n, 4n);
  // cos and sin of k·15°, k = 0..23, as elements of K
  const c15 = K.basis(3, quarter).add(K.basis(1, quarter)); // (√6+√2)/4
  const s15 = K.basis(3, quarter).sub(K.basis(1, quarter)); // (√6−√2)/4
  const c30 = K.basis(2, half);
  const c45 = K.basis(1, half);
  const firstQuadrant: Array<[K, K]> = [
    [K.int(1), K.int(0)],
    [c15, s15],
    [c30, K.fromQ(half)],
    [c45, c45],
    [K.fromQ(half), c30],
    [s15, c15],
  ];
  const quadrant = Math.floor(k / 6);
  let [c, s] = k % 6 === 0 ? [K.int(1), K.int(0)] : firstQuadrant[k % 6];
  for (let j = 0; j < quadrant; j++) [c, s] = [s.neg(), c]; // rotate by 90°
  return c.add(s.mul(K.I));
}
