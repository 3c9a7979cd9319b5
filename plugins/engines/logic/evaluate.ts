import type { Term } from './dsl.js';

/**
 * The engine's own evaluator: the truth of a parsed formula under a model, in exact rationals
 * (BigInt). Every SAT answer, from z3 or from the interval pre-solver, stands on this check, so a
 * model is proven to satisfy the formula as the DSL defines it, not as the solver claims.
 * Returns `null` when the formula cannot be evaluated exactly: quantifiers, division by zero
 * (SMT-LIB leaves it to the model), or a model value that is not an exact number (an irrational
 * algebraic real); the caller then falls back to z3's own model evaluation.
 */
export interface Q {
  n: bigint;
  d: bigint;
}
type Val = Q | boolean;

class NotExact extends Error {}

const abs = (a: bigint): bigint => (a < 0n ? -a : a);
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

export function q(n: bigint, d = 1n): Q {
  if (d === 0n) throw new NotExact();
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}
export const add = (a: Q, b: Q): Q => q(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Q, b: Q): Q => q(a.n * b.d - b.n * a.d, a.d * b.d);
export const mul = (a: Q, b: Q): Q => q(a.n * b.n, a.d * b.d);
export const div = (a: Q, b: Q): Q => q(a.n * b.d, a.d * b.n);
export const cmp = (a: Q, b: Q): number => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};
export function floor(a: Q): bigint {
  const t = a.n / a.d;
  return a.n < 0n && t * a.d !== a.n ? t - 1n : t;
}
export function ceil(a: Q): bigint {
  return -floor(q(-a.n, a.d));
}

const INTEGER = /^-?\d+$/;

/** a decimal or integer literal of the DSL, exactly */
export function literal(text: string): Q {
  // integers, most literals, need no gcd
  if (INTEGER.test(text)) return { n: BigInt(text), d: 1n };
  const neg = text.startsWith('-');
  const [i, f = ''] = text.replace('-', '').split('.');
  const v = q(BigInt(i + f), 10n ** BigInt(f.length));
  return neg ? q(-v.n, v.d) : v;
}

/** `"5"`, `"-3/2"`, `"true"`: the model's strings; anything else (z3's `1.4142?`) is not exact */
export function parseValue(s: string): Val | null {
  if (s === 'true' || s === 'false') return s === 'true';
  const m = /^(-?\d+)(?:\/(\d+))?$/.exec(s);
  return m ? q(BigInt(m[1]), BigInt(m[2] ?? '1')) : null;
}

/** SMT-LIB integer div: a = b·q + r with 0 ≤ r < |b| */
function smtDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new NotExact();
  const fl = (x: bigint, y: bigint): bigint => {
    const t = x / y;
    return x % y !== 0n && (x < 0n) !== (y < 0n) ? t - 1n : t;
  };
  return b > 0n ? fl(a, b) : -fl(a, -b);
}

function num(v: Val): Q {
  if (typeof v === 'boolean') throw new NotExact();
  return v;
}
function bool(v: Val): boolean {
  if (typeof v !== 'boolean') throw new NotExact();
  return v;
}

function ev(t: Term, env: Map<string, Val>): Val {
  switch (t.kind) {
    case 'int':
    case 'real':
      return literal(t.value);
    case 'bool':
      return t.value;
    case 'var': {
      const v = env.get(t.name);
      if (v === undefined || t.bound) throw new NotExact();
      return v;
    }
    case 'app':
      break;
  }
  if (t.binders) throw new NotExact();
  const a = t.args;
  switch (t.op) {
    case 'AND':
      return a.every((x) => bool(ev(x, env)));
    case 'OR':
      return a.some((x) => bool(ev(x, env)));
    case 'NOT':
      return !bool(ev(a[0], env));
    case 'IMPLIES':
      return !bool(ev(a[0], env)) || bool(ev(a[1], env));
    case 'IFF':
      return bool(ev(a[0], env)) === bool(ev(a[1], env));
    case 'XOR':
      return a.reduce((acc, x) => acc !== bool(ev(x, env)), false);
    case 'EQ':
    case 'NEQ': {
      const l = ev(a[0], env);
      const r = ev(a[1], env);
      const eq = typeof l === 'boolean' ? l === bool(r) : cmp(l, num(r)) === 0;
      return t.op === 'EQ' ? eq : !eq;
    }
    case 'GT':
      return cmp(num(ev(a[0], env)), num(ev(a[1], env))) > 0;
    case 'LT':
      return cmp(num(ev(a[0], env)), num(ev(a[1], env))) < 0;
    case 'GTE':
      return cmp(num(ev(a[0], env)), num(ev(a[1], env))) >= 0;
    case 'LTE':
      return cmp(num(ev(a[0], env)), num(ev(a[1], env))) <= 0;
    case 'PLUS':
      return a.map((x) => num(ev(x, env))).reduce(add);
    case 'MULT':
      return a.map((x) => num(ev(x, env))).reduce(mul);
    case 'MINUS':
      return a.length === 1 ? q(-num(ev(a[0], env)).n, num(ev(a[0], env)).d) : sub(num(ev(a[0], env)), num(ev(a[1], env)));
    case 'DIV': {
      const l = num(ev(a[0], env));
      const r = num(ev(a[1], env));
      if (t.sort === 'Int') return q(smtDiv(l.n, r.n));
      return div(l, r);
    }
    case 'MOD': {
      const l = num(ev(a[0], env)).n;
      const r = num(ev(a[1], env)).n;
      return q(l - r * smtDiv(l, r));
    }
    case 'POW': {
      const base = num(ev(a[0], env));
      let out = q(1n);
      for (let e = Number(literal((a[1] as { value: string }).value).n); e > 0; e--) out = mul(out, base);
      return out;
    }
    case 'ITE':
      return bool(ev(a[0], env)) ? ev(a[1], env) : ev(a[2], env);
  }
  throw new NotExact();
}

/** true/false: the formula's truth under the model; null: not exactly evaluable (see above). */
export function holds(body: Term, model: Record<string, string>): boolean | null {
  const env = new Map<string, Val>();
  for (const [k, s] of Object.entries(model)) {
    const v = parseValue(s);
    if (v === null) return null;
    env.set(k, v);
  }
  try {
    return bool(ev(body, env));
  } catch (e) {
    if (e instanceof NotExact) return null;
    throw e;
  }
}
