import { K, Q, expIPi, iroot, sqrtQ } from './field.js';
import { Root, cubeRoot, rationalRoot, root, rootPower, rootProduct } from './radical.js';
import type { Ast } from './ast.js';
import { logRatio } from './logratio.js';

export type Domain = 'real' | 'complex';

/** An expression undefined at the point evaluated: division by zero or outside a function's domain. */
export class EvalError extends Error {
  constructor(
    readonly kind: 'division_by_zero' | 'domain',
    message: string,
  ) {
    super(message);
    this.name = 'EvalError';
  }
}

/**
 * A value that is defined but cannot be computed reliably: floor or ceil of an argument that
 * rounding could put on either side of an integer, a double whose error disc touches a pole or a
 * branch cut. No evidence either way: callers refuse or skip the point.
 */
export class Undecided extends Error {}

export const divZero = () => new EvalError('division_by_zero', 'Division by zero.');

/**
 * Exact value of `a` in K at the point `env`, or null when the value is defined but not in K (π,
 * √5, sin 1). Undefined values throw EvalError. Never approximates.
 */
export function exact(a: Ast, env: ReadonlyMap<string, K> | null, domain: Domain): K | null {
  const v = value(a, env, domain);
  return v instanceof K ? v : null;
}

/** a variable-free value exactly: in K, or a root outside K as u·r^p (radical.ts), or null */
export function exactOrRoot(a: Ast, domain: Domain): K | Root | null {
  return value(a, null, domain);
}

type Env = ReadonlyMap<string, K> | null;
/** an exact value: in K, or a root outside it (radical.ts) that a power or product may bring back */
type Value = K | Root | null;

function value(a: Ast, env: Env, domain: Domain): Value {
  switch (a.k) {
    case 'num':
      return K.fromQ(a.q);
    case 'var':
      return env?.get(a.name) ?? null;
    case 'const':
      return a.name === 'i' ? K.I : null;
    case 'neg': {
      const v = value(a.a, env, domain);
      return v && (v instanceof K ? v.neg() : new Root(v.u.neg(), v.r, v.p));
    }
    case 'add':
    case 'sub': {
      const x = value(a.a, env, domain);
      const y = value(a.b, env, domain);
      if (x instanceof K && y instanceof K) return a.k === 'add' ? x.add(y) : x.sub(y);
      // u·r^p ± v·r^p = (u ± v)·r^p: like roots combine (`\sqrt[3]{2}` against `2^{1/3}`)
      if (x instanceof Root && y instanceof Root && x.r.eq(y.r) && x.p.eq(y.p)) return root(a.k === 'add' ? x.u.add(y.u) : x.u.sub(y.u), x.r, x.p);
      return null;
    }
    case 'mul': {
      const x = value(a.a, env, domain);
      const y = value(a.b, env, domain);
      if (x && y) return rootProduct(x, y, false);
      return (x instanceof K && x.isZero()) || (y instanceof K && y.isZero()) ? K.int(0) : null;
    }
    case 'div': {
      const lr = logRatio(a.a, a.b, rationalConst);
      if (lr) return K.fromQ(lr);
      const y = value(a.b, env, domain);
      if (y instanceof K && y.isZero()) throw divZero();
      const x = value(a.a, env, domain);
      if (x instanceof K && x.isZero() && y) return K.int(0);
      return x && y ? rootProduct(x, y, true) : null;
    }
    case 'pow':
      return power(a, env, domain);
    case 'fn':
      return fn(a, env, domain);
  }
}

function power(a: Extract<Ast, { k: 'pow' }>, env: Env, domain: Domain): Value {
  const e = exact(a.b, env, domain)?.rational() ?? null;
  const b = value(a.a, env, domain);
  if (!e || !b) return null;
  if (b instanceof Root) return rootPower(b, e);
  if (e.isInt()) {
    if (b.isZero() && e.sign() < 0) throw divZero();
    return b.pow(Number(e.n));
  }
  const base = b.rational();
  if (!base) return null;
  if (base.isZero()) {
    if (e.sign() < 0) throw divZero();
    return K.int(0);
  }
  // a negative base has a complex principal root: exact only where e^{iπe} is in K
  return rationalRoot(base, e, domain === 'real');
}

/** q such that `a` = q·π exactly (q rational), or null */
export function piMultiple(a: Ast): Q | null {
  switch (a.k) {
    case 'const':
      return a.name === 'pi' ? Q.ONE : null;
    case 'num':
      return a.q.isZero() ? Q.ZERO : null;
    case 'neg': {
      const q = piMultiple(a.a);
      return q && q.neg();
    }
    case 'add':
    case 'sub': {
      const x = piMultiple(a.a);
      const y = piMultiple(a.b);
      if (!x || !y) return null;
      return a.k === 'add' ? x.add(y) : x.sub(y);
    }
    case 'mul': {
      const x = piMultiple(a.a);
      const y = rationalConst(a.b);
      if (x && y) return x.mul(y);
      const x2 = rationalConst(a.a);
      const y2 = piMultiple(a.b);
      return x2 && y2 ? x2.mul(y2) : null;
    }
    case 'div': {
      const x = piMultiple(a.a);
      const y = rationalConst(a.b);
      return x && y && !y.isZero() ? x.div(y) : null;
    }
    default:
      return null;
  }
}

/** q such that `a` = i·q·π exactly, or null */
function iPiMultiple(a: Ast): Q | null {
  const isI = (x: Ast) => x.k === 'const' && x.name === 'i';
  switch (a.k) {
    case 'neg': {
      const q = iPiMultiple(a.a);
      return q && q.neg();
    }
    case 'add':
    case 'sub': {
      const x = iPiMultiple(a.a);
      const y = iPiMultiple(a.b);
      if (!x || !y) return null;
      return a.k === 'add' ? x.add(y) : x.sub(y);
    }
    case 'mul': {
      if (isI(a.a)) return piMultiple(a.b);
      if (isI(a.b)) return piMultiple(a.a);
      const ca = rationalConst(a.a);
      if (ca) {
        const q = iPiMultiple(a.b);
        return q && q.mul(ca);
      }
      const cb = rationalConst(a.b);
      const q = cb && iPiMultiple(a.a);
      return q && cb ? q.mul(cb) : null;
    }
    case 'div': {
      const d = rationalConst(a.b);
      const q = d && !d.isZero() ? iPiMultiple(a.a) : null;
      return q && d ? q.div(d) : null;
    }
    default:
      return null;
  }
}

/** value of a variable-free subtree when it is rational, else null (no errors: callers re-evaluate) */
export function rationalConst(a: Ast): Q | null {
  try {
    return exact(a, null, 'complex')?.rational() ?? null;
  } catch {
    return null;
  }
}

function trig(name: 'sin' | 'cos' | 'tan', arg: Ast, env: ReadonlyMap<string, K> | null, domain: Domain): K | null {
  let q = piMultiple(arg);
  if (!q) {
    const v = exact(arg, env, domain);
    if (v && v.isZero()) q = Q.ZERO;
  }
  const w = q && expIPi(q);
  if (!w) return null;
  const [c, s] = w.split();
  if (name === 'cos') return c;
  if (name === 'sin') return s;
  if (c.isZero()) throw divZero();
  return s.div(c);
}

function fn(a: Extract<Ast, { k: 'fn' }>, env: Env, domain: Domain): Value {
  if (a.name === 'sin' || a.name === 'cos' || a.name === 'tan') return trig(a.name, a.args[0], env, domain);
  const arg = value(a.args[0], env, domain);
  const x = arg instanceof K ? arg : null;
  const r = x?.rational() ?? null;
  switch (a.name) {
    case 'sqrt': {
      // √ is the principal z^(1/2); a root's root is a root of its positive radicand
      if (arg instanceof Root) return rootPower(arg, Q.of(1n, 2n));
      if (!r) return null;
      if (r.sign() < 0 && domain === 'real') throw new EvalError('domain', 'Square root of a negative number is not real.');
      return sqrtQ(r) ?? rationalRoot(r, Q.of(1n, 2n), false);
    }
    case 'cbrt': {
      if (arg instanceof Root) {
        // real cube root of a real root: ±(|u|·r^p)^(1/3)
        const u = arg.u.rational();
        if (!u) return null;
        const c = rootPower(new Root(K.fromQ(u.sign() < 0 ? u.neg() : u), arg.r, arg.p), Q.of(1n, 3n));
        return c && u.sign() < 0 ? rootProduct(K.int(-1), c, false) : c;
      }
      if (!r) return null;
      if (r.isZero()) return K.int(0);
      return cubeRoot(r);
    }
    case 'abs': {
      if (!x) return null;
      if (r) return K.fromQ(r.sign() < 0 ? r.neg() : r);
      const sq = x.mul(x.conjI()).rational();
      return sq ? sqrtQ(sq) : null;
    }
    case 'exp': {
      if (x && x.isZero()) return K.int(1);
      // Euler: e^{iqπ} is in K for q ∈ (1/12)Z
      const q = iPiMultiple(a.args[0]);
      return q ? expIPi(q) : null;
    }
    case 'log':
    case 'ln':
    case 'log10': {
      if (x && x.isZero()) throw new EvalError('domain', 'Logarithm of zero is undefined.');
      const arg = a.args[0];
      if (a.name !== 'log10' && arg.k === 'const' && arg.name === 'e') return K.int(1);
      if (!r) return null;
      if (r.sign() < 0) {
        if (domain === 'real') throw new EvalError('domain', 'Logarithm of a negative number is not real.');
        return null;
      }
      if (r.eq(Q.ONE)) return K.int(0);
      if (a.name === 'log10') return log10Exact(r);
      return null;
    }
    case 'asin':
    case 'atan':
    case 'sinh':
    case 'tanh':
      return x && x.isZero() ? K.int(0) : null;
    case 'acos':
      return r && r.eq(Q.ONE) ? K.int(0) : null;
    case 'cosh':
      return x && x.isZero() ? K.int(1) : null;
    case 'factorial': {
      if (arg instanceof Root) throw new EvalError('domain', 'Factorial is defined for non-negative integers only (the argument is an irrational root).');
      if (!x) return null;
      if (!r || !r.isInt() || r.sign() < 0) throw new EvalError('domain', 'Factorial is defined for non-negative integers only.');
      let p = 1n;
      for (let k = 2n; k <= r.n; k++) p *= k;
      return K.fromQ(Q.of(p));
    }
    case 'binomial': {
      const k2 = value(a.args[1], env, domain);
      if (arg instanceof Root || k2 instanceof Root) throw new EvalError('domain', 'Binomial coefficients are defined for non-negative integers only (an argument is an irrational root).');
      const k = k2;
      if (!x || !k) return null;
      const n = r;
      const kr = k.rational();
      if (!n || !kr || !n.isInt() || !kr.isInt() || n.sign() < 0 || kr.sign() < 0) {
        throw new EvalError('domain', 'Binomial coefficients are defined for non-negative integers only.');
      }
      if (kr.n > n.n) return K.int(0);
      let num = 1n;
      let den = 1n;
      const kk = kr.n < n.n - kr.n ? kr.n : n.n - kr.n;
      for (let j = 1n; j <= kk; j++) {
        num *= n.n - kk + j;
        den *= j;
      }
      return K.fromQ(Q.of(num / den));
    }
    case 'floor':
    case 'ceil': {
      if (!r) return null;
      let f = r.n / r.d;
      if (r.n < 0n && f * r.d !== r.n) f -= 1n; // BigInt division truncates toward zero
      if (a.name === 'ceil' && f * r.d !== r.n) f += 1n;
      return K.fromQ(Q.of(f));
    }
    default:
      return null;
  }
}

function log10Exact(r: Q): K | null {
  let n = r.n;
  let d = r.d;
  let k = 0;
  if (d === 1n) {
    while (n % 10n === 0n) (n /= 10n), k++;
    return n === 1n ? K.int(k) : null;
  }
  if (n !== 1n) return null;
  while (d % 10n === 0n) (d /= 10n), k--;
  return d === 1n ? K.int(k) : null;
}
