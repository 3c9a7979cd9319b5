import { K, Q, expIPi } from './field.js';
import { exact, exactOrRoot, EvalError, piMultiple, type Domain } from './exact.js';
import { approximate } from './approx.js';
import { isConstant, show, type Ast } from './ast.js';

/**
 * A rational expression over "atoms": polynomial variables x, e^x, e^{ix}, the constants π and e,
 * and opaque subterms (√x, log x, sin 1 …) that are kept as independent indeterminates. Every
 * supported function is rewritten exactly: cos(kx + qπ) = (w + 1/w)/2 with w = e^{iqπ}·z^k, z = e^{ix};
 * sinh, cosh, exp likewise through E = e^x. Substituting the atoms' true values gives back the
 * original function exactly, which is what makes a formal zero a proof (see identity.ts).
 */
export type IR =
  | { t: 'c'; v: K }
  | { t: 'a'; i: number }
  | { t: 'add' | 'sub' | 'mul' | 'div'; a: IR; b: IR }
  | { t: 'neg'; a: IR }
  | { t: 'pow'; a: IR; n: number };

export type AtomKind = 'var' | 'exp' | 'eix' | 'pi' | 'e' | 'opaque';
export interface Atom {
  kind: AtomKind;
  key: string;
  /** how the atom reads in a counterexample */
  label: string;
}

export class Atoms {
  readonly list: Atom[] = [];
  private readonly index = new Map<string, number>();
  get(kind: AtomKind, key: string, label: string): IR {
    const id = `${kind}:${key}`;
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.list.length;
      this.list.push({ kind, key, label });
      this.index.set(id, i);
    }
    return { t: 'a', i };
  }
  /** refutation is sound only when the atoms are algebraically independent (no opaque term, not both π and e) */
  independent(): boolean {
    const kinds = new Set(this.list.map((a) => a.kind));
    return !kinds.has('opaque') && !(kinds.has('pi') && kinds.has('e'));
  }
}

const c = (v: K): IR => ({ t: 'c', v });
const cq = (n: bigint, d: bigint = 1n): IR => c(K.fromQ(Q.of(n, d)));
const add = (a: IR, b: IR): IR => ({ t: 'add', a, b });
const sub = (a: IR, b: IR): IR => ({ t: 'sub', a, b });
const mul = (a: IR, b: IR): IR => ({ t: 'mul', a, b });
const div = (a: IR, b: IR): IR => ({ t: 'div', a, b });
const pow = (a: IR, n: number): IR => (n === 1 ? a : { t: 'pow', a, n });

/** linear form Σ k_v·v + q·π + r, or null */
interface Linear {
  vars: Map<string, Q>;
  pi: Q;
  r: Q;
}

function linear(a: Ast): Linear | null {
  if (isConstant(a)) {
    const q = piMultiple(a);
    if (q) return { vars: new Map(), pi: q, r: Q.ZERO };
    let v: K | null = null;
    try {
      v = exact(a, null, 'complex');
    } catch {
      return null;
    }
    const r = v?.rational();
    return r ? { vars: new Map(), pi: Q.ZERO, r } : null;
  }
  switch (a.k) {
    case 'var':
      return { vars: new Map([[a.name, Q.ONE]]), pi: Q.ZERO, r: Q.ZERO };
    case 'neg': {
      const x = linear(a.a);
      return x && scale(x, Q.ONE.neg());
    }
    case 'add':
    case 'sub': {
      const x = linear(a.a);
      const y = linear(a.b);
      if (!x || !y) return null;
      const yy = a.k === 'sub' ? scale(y, Q.ONE.neg()) : y;
      const vars = new Map(x.vars);
      for (const [k, v] of yy.vars) vars.set(k, (vars.get(k) ?? Q.ZERO).add(v));
      return { vars, pi: x.pi.add(yy.pi), r: x.r.add(yy.r) };
    }
    case 'mul': {
      const [cst, other] = isConstant(a.a) ? [a.a, a.b] : isConstant(a.b) ? [a.b, a.a] : [null, null];
      if (!cst || !other) return null;
      const k = constRational(cst);
      const x = linear(other);
      return k && x ? scale(x, k) : null;
    }
    case 'div': {
      if (!isConstant(a.b)) return null;
      const k = constRational(a.b);
      const x = linear(a.a);
      return k && !k.isZero() && x ? scale(x, Q.ONE.div(k)) : null;
    }
    default:
      return null;
  }
}

function constRational(a: Ast): Q | null {
  try {
    return exact(a, null, 'complex')?.rational() ?? null;
  } catch {
    return null;
  }
}

function scale(x: Linear, k: Q): Linear {
  return { vars: new Map([...x.vars].map(([n, v]) => [n, v.mul(k)])), pi: x.pi.mul(k), r: x.r.mul(k) };
}

export class Builder {
  readonly atoms = new Atoms();
  constructor(private readonly domain: Domain) {}

  build(a: Ast): IR {
    if (isConstant(a)) {
      // a variable-free subtree: exact in K when possible; otherwise it must at least be defined
      const v = exactOrRoot(a, this.domain);
      if (v instanceof K) return c(v);
      // a root outside K, u·r^p, is u times one atom per r^p: cbrt(2) and 2^(1/3) are one atom
      if (v) return mul(c(v.u), this.atoms.get('opaque', `root:${v.r.n}/${v.r.d}^${v.p.n}/${v.p.d}`, `${v.r.n}${v.r.d === 1n ? '' : `/${v.r.d}`}^(${v.p.n}/${v.p.d})`));
      approximate(a, null, this.domain);
    }
    switch (a.k) {
      case 'num':
        return c(K.fromQ(a.q));
      case 'var':
        return this.atoms.get('var', a.name, a.name);
      case 'const':
        if (a.name === 'i') return c(K.I);
        return a.name === 'pi' ? this.atoms.get('pi', 'pi', 'pi') : this.atoms.get('e', 'e', 'e');
      case 'neg':
        return { t: 'neg', a: this.build(a.a) };
      case 'add':
      case 'sub':
      case 'mul':
      case 'div':
        return { t: a.k, a: this.build(a.a), b: this.build(a.b) };
      case 'pow': {
        const e = isConstant(a.b) ? constRational(a.b) : null;
        if (e && e.isInt()) return pow(this.build(a.a), Number(e.n));
        return this.opaque(a);
      }
      case 'fn':
        return this.fn(a) ?? this.opaque(a);
    }
  }

  private opaque(a: Ast): IR {
    const key = show(a);
    return this.atoms.get('opaque', key, key);
  }

  /** e^{i·arg} (trig) or e^{arg} (exp family) as a monomial in atoms times a constant of K, or null */
  private expOf(arg: Ast, imaginary: boolean): IR | null {
    const lin = linear(arg);
    if (!lin) return null;
    let out: IR | null = null;
    for (const [name, k] of lin.vars) {
      if (k.isZero()) continue;
      if (!k.isInt() || k.n > 1000n || k.n < -1000n) return null;
      const atom = imaginary ? this.atoms.get('eix', name, `exp(i*${name})`) : this.atoms.get('exp', name, `exp(${name})`);
      const term = pow(atom, Number(k.n));
      out = out ? mul(out, term) : term;
    }
    if (imaginary) {
      if (!lin.r.isZero()) return null;
      const w = expIPi(lin.pi);
      if (!w) return null;
      if (!w.eq(K.int(1))) out = out ? mul(c(w), out) : c(w);
    } else {
      if (!lin.pi.isZero() || !lin.r.isInt()) return null;
      if (!lin.r.isZero()) {
        const e = pow(this.atoms.get('e', 'e', 'e'), Number(lin.r.n));
        out = out ? mul(out, e) : e;
      }
    }
    return out ?? cq(1n);
  }

  private fn(a: Extract<Ast, { k: 'fn' }>): IR | null {
    const half = cq(1n, 2n);
    switch (a.name) {
      case 'sin':
      case 'cos':
      case 'tan': {
        const w = this.expOf(a.args[0], true);
        if (!w) return null;
        const inv = div(cq(1n), w);
        const cos = mul(half, add(w, inv));
        const sin = div(sub(w, inv), c(K.I.mul(K.int(2))));
        return a.name === 'cos' ? cos : a.name === 'sin' ? sin : div(sin, cos);
      }
      case 'exp': {
        const arg = a.args[0];
        // e^{i·θ} with θ linear: the same atoms as cos/sin
        const isI = (x: Ast) => x.k === 'const' && x.name === 'i';
        if (arg.k === 'mul' && (isI(arg.a) || isI(arg.b))) return this.expOf(isI(arg.a) ? arg.b : arg.a, true);
        return this.expOf(arg, false);
      }
      case 'sinh':
      case 'cosh':
      case 'tanh': {
        const u = this.expOf(a.args[0], false);
        if (!u) return null;
        const inv = div(cq(1n), u);
        const sinh = mul(half, sub(u, inv));
        const cosh = mul(half, add(u, inv));
        return a.name === 'sinh' ? sinh : a.name === 'cosh' ? cosh : div(sinh, cosh);
      }
      default:
        return null;
    }
  }
}

/** per-atom degree bounds [numerator, denominator] of the formal quotient the IR denotes */
export function degrees(ir: IR, n: number): { num: number[]; den: number[] } {
  switch (ir.t) {
    case 'c':
      return { num: new Array(n).fill(0), den: new Array(n).fill(0) };
    case 'a': {
      const num = new Array(n).fill(0);
      num[ir.i] = 1;
      return { num, den: new Array(n).fill(0) };
    }
    case 'neg':
      return degrees(ir.a, n);
    case 'pow': {
      const d = degrees(ir.a, n);
      const k = Math.abs(ir.n);
      const num = d.num.map((x) => x * k);
      const den = d.den.map((x) => x * k);
      return ir.n >= 0 ? { num, den } : { num: den, den: num };
    }
    default: {
      const x = degrees(ir.a, n);
      const y = degrees(ir.b, n);
      if (ir.t === 'mul') return { num: x.num.map((v, i) => v + y.num[i]), den: x.den.map((v, i) => v + y.den[i]) };
      if (ir.t === 'div') return { num: x.num.map((v, i) => v + y.den[i]), den: x.den.map((v, i) => v + y.num[i]) };
      return {
        num: x.num.map((v, i) => Math.max(v + y.den[i], y.num[i] + x.den[i])),
        den: x.den.map((v, i) => v + y.den[i]),
      };
    }
  }
}

export function irSize(ir: IR): number {
  switch (ir.t) {
    case 'c':
    case 'a':
      return 1;
    case 'neg':
    case 'pow':
      return 1 + irSize(ir.a);
    default:
      return 1 + irSize(ir.a) + irSize(ir.b);
  }
}

/** exact value at a point; EvalError when a division by zero occurs anywhere in the evaluation */
export function evalIR(ir: IR, point: readonly K[]): K {
  switch (ir.t) {
    case 'c':
      return ir.v;
    case 'a':
      return point[ir.i];
    case 'neg':
      return evalIR(ir.a, point).neg();
    case 'pow': {
      const b = evalIR(ir.a, point);
      if (ir.n < 0 && b.isZero()) throw new EvalError('division_by_zero', 'Division by zero.');
      return b.pow(ir.n);
    }
    case 'add':
      return evalIR(ir.a, point).add(evalIR(ir.b, point));
    case 'sub':
      return evalIR(ir.a, point).sub(evalIR(ir.b, point));
    case 'mul':
      return evalIR(ir.a, point).mul(evalIR(ir.b, point));
    case 'div': {
      const y = evalIR(ir.b, point);
      if (y.isZero()) throw new EvalError('division_by_zero', 'Division by zero.');
      return evalIR(ir.a, point).div(y);
    }
  }
}
