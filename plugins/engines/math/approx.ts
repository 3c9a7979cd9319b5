import { Decimal as DecimalLib } from 'decimal.js';
import { create, all, type Complex } from 'mathjs';
import { K, Q } from './field.js';
import { EvalError, divZero, exact, type Domain } from './exact.js';
import type { Ast } from './ast.js';

/** 50 significant digits: far beyond the margins used to call two values different (see docs) */
export const Dec = DecimalLib.clone({ precision: 50, rounding: 6, toExpNeg: -60, toExpPos: 60 });
export type Dec = InstanceType<typeof Dec>;

/** mathjs in plain double mode, used only for complex values decimal.js cannot carry */
const mf = create(all);

/** thrown by the decimal evaluator when a value leaves the real line */
export class NeedComplex extends Error {}

const PI = Dec.acos(-1);
const E = Dec.exp(1);

export function kToDec(v: K): Dec {
  if (!v.isReal()) throw new NeedComplex('complex');
  const roots = [new Dec(1), Dec.sqrt(2), Dec.sqrt(3), Dec.sqrt(6)];
  let s = new Dec(0);
  v.coefficients().forEach((q, m) => {
    if (m < 4 && !q.isZero()) s = s.plus(new Dec(q.n.toString()).div(q.d.toString()).times(roots[m]));
  });
  return s;
}

function finite(x: Dec): Dec {
  if (!x.isFinite()) throw new EvalError('domain', 'Value is not a finite number.');
  return x;
}

/** real value at 50 digits; EvalError when undefined, NeedComplex when the value is not real */
export function evalDec(a: Ast, env: ReadonlyMap<string, Dec> | null): Dec {
  switch (a.k) {
    case 'num':
      return new Dec(a.text);
    case 'var': {
      const v = env?.get(a.name);
      if (!v) throw new EvalError('domain', `Variable ${a.name} has no value.`);
      return v;
    }
    case 'const':
      if (a.name === 'i') throw new NeedComplex('i');
      return a.name === 'pi' ? PI : E;
    case 'neg':
      return evalDec(a.a, env).neg();
    case 'add':
      return finite(evalDec(a.a, env).plus(evalDec(a.b, env)));
    case 'sub':
      return finite(evalDec(a.a, env).minus(evalDec(a.b, env)));
    case 'mul':
      return finite(evalDec(a.a, env).times(evalDec(a.b, env)));
    case 'div': {
      const y = evalDec(a.b, env);
      if (y.isZero()) throw divZero();
      return finite(evalDec(a.a, env).div(y));
    }
    case 'pow': {
      const b = evalDec(a.a, env);
      const e = evalDec(a.b, env);
      if (b.isZero() && e.isNeg()) throw divZero();
      if (b.isNeg() && !e.isInteger()) throw new NeedComplex('root of a negative number');
      return finite(b.pow(e));
    }
    case 'fn': {
      // integer-valued functions are computed exactly and converted
      if (a.name === 'factorial' || a.name === 'binomial') {
        const args = a.args.map((x) => evalDec(x, env));
        const v = exact({ ...a, args: args.map((d) => ({ k: 'num' as const, q: qOf(d), text: d.toFixed() })) }, null, 'real');
        if (!v) throw new EvalError('domain', `${a.name} is defined for non-negative integers only.`);
        return kToDec(v);
      }
      const x = evalDec(a.args[0], env);
      switch (a.name) {
        case 'sin': return Dec.sin(x);
        case 'cos': return Dec.cos(x);
        case 'tan': {
          if (Dec.cos(x).isZero()) throw divZero();
          return finite(Dec.tan(x));
        }
        case 'asin':
        case 'acos':
          if (x.abs().gt(1)) throw new NeedComplex(a.name);
          return a.name === 'asin' ? Dec.asin(x) : Dec.acos(x);
        case 'atan': return Dec.atan(x);
        case 'sinh': return finite(Dec.sinh(x));
        case 'cosh': return finite(Dec.cosh(x));
        case 'tanh': return Dec.tanh(x);
        case 'sqrt':
          if (x.isNeg()) throw new NeedComplex('sqrt');
          return Dec.sqrt(x);
        case 'cbrt': return Dec.cbrt(x);
        case 'abs': return x.abs();
        case 'exp': return finite(Dec.exp(x));
        case 'log':
        case 'ln':
        case 'log10':
          if (x.isZero()) throw new EvalError('domain', 'Logarithm of zero is undefined.');
          if (x.isNeg()) throw new NeedComplex('log');
          return a.name === 'log10' ? Dec.log10(x) : Dec.ln(x);
        case 'floor': return x.floor();
        case 'ceil': return x.ceil();
      }
    }
  }
  throw new EvalError('domain', 'Unsupported expression.');
}

function qOf(d: Dec): Q {
  const [n, den] = d.toFraction();
  return Q.of(BigInt(n.toFixed()), BigInt(den.toFixed()));
}

type CV = number | Complex;

function isZeroC(v: CV): boolean {
  return typeof v === 'number' ? v === 0 : v.re === 0 && v.im === 0;
}

function checkC(v: CV): CV {
  const ok = typeof v === 'number' ? Number.isFinite(v) : Number.isFinite(v.re) && Number.isFinite(v.im);
  if (!ok) throw new EvalError('domain', 'Value is not a finite number.');
  return v;
}

/** double-precision complex value (principal branches, as mathjs) */
export function evalComplex(a: Ast, env: ReadonlyMap<string, CV> | null): CV {
  switch (a.k) {
    case 'num':
      return Number(a.text);
    case 'var': {
      const v = env?.get(a.name);
      if (v === undefined) throw new EvalError('domain', `Variable ${a.name} has no value.`);
      return v;
    }
    case 'const':
      return a.name === 'i' ? mf.complex(0, 1) : a.name === 'pi' ? Math.PI : Math.E;
    case 'neg':
      return mf.unaryMinus(evalComplex(a.a, env)) as CV;
    case 'add':
      return checkC(mf.add(evalComplex(a.a, env), evalComplex(a.b, env)) as CV);
    case 'sub':
      return checkC(mf.subtract(evalComplex(a.a, env), evalComplex(a.b, env)) as CV);
    case 'mul':
      return checkC(mf.multiply(evalComplex(a.a, env), evalComplex(a.b, env)) as CV);
    case 'div': {
      const y = evalComplex(a.b, env);
      if (isZeroC(y)) throw divZero();
      return checkC(mf.divide(evalComplex(a.a, env), y) as CV);
    }
    case 'pow': {
      const b = evalComplex(a.a, env);
      const e = evalComplex(a.b, env);
      if (isZeroC(b) && typeof e === 'number' && e < 0) throw divZero();
      return checkC(mf.pow(b, e) as CV);
    }
    case 'fn': {
      const args = a.args.map((x) => evalComplex(x, env));
      const x = args[0];
      if (['factorial', 'binomial', 'floor', 'ceil'].includes(a.name)) {
        if (args.some((v) => typeof v !== 'number')) throw new EvalError('domain', `${a.name} of a complex number is undefined.`);
        const d = args.map((v) => new Dec(v as number));
        return evalDec({ ...a, args: d.map((v) => ({ k: 'num' as const, q: qOf(v), text: v.toFixed() })) }, null).toNumber();
      }
      if ((a.name === 'log' || a.name === 'ln' || a.name === 'log10') && isZeroC(x)) {
        throw new EvalError('domain', 'Logarithm of zero is undefined.');
      }
      const f: Record<string, (v: CV) => unknown> = {
        sin: mf.sin, cos: mf.cos, tan: mf.tan, asin: mf.asin, acos: mf.acos, atan: mf.atan,
        sinh: mf.sinh, cosh: mf.cosh, tanh: mf.tanh, sqrt: mf.sqrt, cbrt: (v) => (typeof v === 'number' ? Math.cbrt(v) : mf.pow(v, 1 / 3)),
        abs: mf.abs, exp: mf.exp, log: mf.log, ln: mf.log, log10: mf.log10,
      };
      return checkC(f[a.name](x) as CV);
    }
  }
}

export type Approx = { kind: 'real'; value: Dec } | { kind: 'complex'; re: number; im: number };

/** best numeric value: 50-digit real when the value is real, else a double complex (complex domain only) */
export function approximate(a: Ast, decEnv: ReadonlyMap<string, Dec> | null, cEnv: ReadonlyMap<string, CV> | null, domain: Domain): Approx {
  try {
    return { kind: 'real', value: evalDec(a, decEnv) };
  } catch (err) {
    if (!(err instanceof NeedComplex)) throw err;
    if (domain === 'real') throw new EvalError('domain', 'The value is not a real number.');
  }
  const v = evalComplex(a, cEnv);
  return typeof v === 'number' ? { kind: 'complex', re: v, im: 0 } : { kind: 'complex', re: v.re, im: v.im };
}
