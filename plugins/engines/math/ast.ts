import type { Q } from './field.js';

/** The engine's own expression tree: only what the allowlist admits survives conversion from mathjs. */
export type Ast =
  | { k: 'num'; q: Q; text: string }
  | { k: 'var'; name: string }
  | { k: 'const'; name: 'pi' | 'e' | 'i' }
  | { k: 'neg'; a: Ast }
  | Bin<'add'>
  | Bin<'sub'>
  | Bin<'mul'>
  | Bin<'div'>
  | Bin<'pow'>
  | { k: 'fn'; name: FnName; args: Ast[] };

type Bin<K extends string> = { k: K; a: Ast; b: Ast };

export const FUNCTIONS = [
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh',
  'sqrt', 'cbrt', 'abs', 'exp', 'log', 'ln', 'log10', 'factorial', 'binomial', 'floor', 'ceil',
] as const;
export type FnName = (typeof FUNCTIONS)[number];
export const FUNCTION_SET: ReadonlySet<string> = new Set(FUNCTIONS);

export function isConstant(a: Ast): boolean {
  switch (a.k) {
    case 'num':
    case 'const':
      return true;
    case 'var':
      return false;
    case 'neg':
      return isConstant(a.a);
    case 'fn':
      return a.args.every(isConstant);
    default:
      return isConstant(a.a) && isConstant(a.b);
  }
}

export function variables(a: Ast, out: Set<string> = new Set()): Set<string> {
  switch (a.k) {
    case 'var':
      out.add(a.name);
      break;
    case 'num':
    case 'const':
      break;
    case 'neg':
      variables(a.a, out);
      break;
    case 'fn':
      a.args.forEach((x) => variables(x, out));
      break;
    default:
      variables(a.a, out);
      variables(a.b, out);
  }
  return out;
}

const PREC: Record<string, number> = { add: 1, sub: 1, mul: 2, div: 2, neg: 3, pow: 4 };
const SYM: Record<string, string> = { add: ' + ', sub: ' - ', mul: '*', div: '/', pow: '^' };

/** canonical text (also the key of opaque atoms); fully determined by the tree */
export function show(a: Ast): string {
  switch (a.k) {
    case 'num':
      return a.q.toString().includes('/') ? `(${a.q})` : a.q.toString();
    case 'var':
      return a.name;
    case 'const':
      return a.name;
    case 'neg': {
      const s = show(a.a);
      return PREC[a.a.k] !== undefined && PREC[a.a.k] < 3 ? `-(${s})` : `-${s}`;
    }
    case 'fn':
      return `${a.name}(${a.args.map(show).join(', ')})`;
    default: {
      const p = PREC[a.k];
      const wrap = (x: Ast, right: boolean) => {
        const q = PREC[x.k];
        const need = q !== undefined && (q < p || (q === p && (right ? a.k !== 'add' && a.k !== 'mul' : a.k === 'pow')));
        return need ? `(${show(x)})` : show(x);
      };
      return `${wrap(a.a, false)}${SYM[a.k]}${wrap(a.b, true)}`;
    }
  }
}

export function sameTree(x: Ast, y: Ast): boolean {
  if (x.k !== y.k) return false;
  switch (x.k) {
    case 'num':
      return x.q.eq((y as typeof x).q);
    case 'var':
    case 'const':
      return x.name === (y as typeof x).name;
    case 'neg':
      return sameTree(x.a, (y as typeof x).a);
    case 'fn': {
      const z = y as typeof x;
      return x.name === z.name && x.args.length === z.args.length && x.args.every((a, i) => sameTree(a, z.args[i]));
    }
    default: {
      const z = y as typeof x;
      return sameTree(x.a, z.a) && sameTree(x.b, z.b);
    }
  }
}
