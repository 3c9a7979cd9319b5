import type { Arith, Bool, Context, IntNum } from 'z3-solver';

/**
 * The operator table of the logic DSL. Parsing (is this an operator at all?), arity and sort
 * checks, the canonical form and compilation to z3 all read this one table, so an operator cannot
 * be known to the parser but missing from the compiler, or vice versa.
 *
 * This module is imported by the main thread (parsing) and by the z3 worker (compilation); it
 * imports z3 only as types so parsing never loads the wasm.
 */
export type Sort = 'Int' | 'Real' | 'Bool';
export const SORTS: readonly Sort[] = ['Int', 'Real', 'Bool'];

export type Z3Ctx = Context<'logic'>;
export type Z3Arith = Arith<'logic'>;
export type Z3Bool = Bool<'logic'>;
export type Z3Term = Z3Arith | Z3Bool;

/** Thrown by a sort rule; the parser turns it into a type error at the offending operator. */
export class SortError extends Error {}

/**
 * `form` says how the parser reads the arguments:
 * - `terms`: every argument is a term (the common case);
 * - `binder`: `(OP ((name Sort) ...) body)`: a quantifier;
 * - `decl`: `(VAR name Sort)`: a declaration, only before the formula at the top level.
 */
export interface OpSpec {
  readonly name: string;
  readonly form: 'terms' | 'binder' | 'decl';
  readonly min: number;
  readonly max: number;
  /** result sort from argument sorts; throws SortError when they do not fit */
  readonly sort: (args: readonly Sort[]) => Sort;
  /**
   * builds the z3 term; `sorts` are the argument sorts the parser inferred; `bound` are the
   * constants a quantifier binds (its body is the single argument)
   */
  readonly compile: (z: Z3Ctx, args: Z3Term[], sorts: readonly Sort[], bound: Z3Term[]) => Z3Term;
}

const isNum = (s: Sort): boolean => s === 'Int' || s === 'Real';

function allBool(name: string) {
  return (args: readonly Sort[]): Sort => {
    args.forEach((s, i) => {
      if (s !== 'Bool') throw new SortError(`${name} argument ${i + 1} must be Bool, got ${s}`);
    });
    return 'Bool';
  };
}

/** Int op Int stays Int; any Real makes the result Real (Ints are promoted, as in SMT-LIB's mixed arithmetic). */
function numeric(name: string, opts: { intOnly?: boolean } = {}) {
  return (args: readonly Sort[]): Sort => {
    args.forEach((s, i) => {
      if (!isNum(s)) throw new SortError(`${name} argument ${i + 1} must be Int or Real, got ${s}`);
      if (opts.intOnly && s !== 'Int') throw new SortError(`${name} argument ${i + 1} must be Int, got ${s}`);
    });
    return args.includes('Real') ? 'Real' : 'Int';
  };
}

function comparison(name: string) {
  return (args: readonly Sort[]): Sort => {
    numeric(name)(args);
    return 'Bool';
  };
}

/** EQ/NEQ compare two numbers or two Booleans, never one of each. */
function sameKind(name: string) {
  return (args: readonly Sort[]): Sort => {
    const [a, b] = args;
    if (isNum(a) !== isNum(b)) throw new SortError(`${name} compares ${a} with ${b}`);
    return 'Bool';
  };
}

/** Promotes Int arguments to Real when any argument is Real, so z3 never sees mixed sorts. */
export function promote(z: Z3Ctx, args: Z3Term[], sorts: readonly Sort[]): Z3Arith[] {
  const real = sorts.includes('Real');
  return args.map((a, i) => (real && sorts[i] === 'Int' ? z.ToReal(a as Z3Arith) : (a as Z3Arith)));
}

function eqArgs(z: Z3Ctx, args: Z3Term[], sorts: readonly Sort[]): [Z3Term, Z3Term] {
  if (sorts[0] === 'Bool') return [args[0], args[1]];
  const [a, b] = promote(z, args, sorts);
  return [a, b];
}

const bools = (args: Z3Term[]): Z3Bool[] => args as Z3Bool[];

const table: OpSpec[] = [
  { name: 'AND', form: 'terms', min: 1, max: Infinity, sort: allBool('AND'), compile: (z, a) => z.And(...bools(a)) },
  { name: 'OR', form: 'terms', min: 1, max: Infinity, sort: allBool('OR'), compile: (z, a) => z.Or(...bools(a)) },
  { name: 'NOT', form: 'terms', min: 1, max: 1, sort: allBool('NOT'), compile: (z, a) => z.Not(a[0] as Z3Bool) },
  {
    name: 'IMPLIES', form: 'terms', min: 2, max: 2, sort: allBool('IMPLIES'),
    compile: (z, a) => z.Implies(a[0] as Z3Bool, a[1] as Z3Bool),
  },
  { name: 'IFF', form: 'terms', min: 2, max: 2, sort: allBool('IFF'), compile: (z, a) => z.Iff(a[0] as Z3Bool, a[1] as Z3Bool) },
  {
    // n-ary XOR is parity (true when an odd number of arguments hold), folded left
    name: 'XOR', form: 'terms', min: 2, max: Infinity, sort: allBool('XOR'),
    compile: (z, a) => bools(a).slice(1).reduce((acc, b) => z.Xor(acc, b), a[0] as Z3Bool),
  },
  {
    name: 'EQ', form: 'terms', min: 2, max: 2, sort: sameKind('EQ'),
    compile: (z, a, s) => { const [x, y] = eqArgs(z, a, s); return z.Eq(x, y); },
  },
  {
    name: 'NEQ', form: 'terms', min: 2, max: 2, sort: sameKind('NEQ'),
    compile: (z, a, s) => { const [x, y] = eqArgs(z, a, s); return z.Not(z.Eq(x, y)); },
  },
  { name: 'GT', form: 'terms', min: 2, max: 2, sort: comparison('GT'), compile: (z, a, s) => { const [x, y] = promote(z, a, s); return x.gt(y); } },
  { name: 'LT', form: 'terms', min: 2, max: 2, sort: comparison('LT'), compile: (z, a, s) => { const [x, y] = promote(z, a, s); return x.lt(y); } },
  { name: 'GTE', form: 'terms', min: 2, max: 2, sort: comparison('GTE'), compile: (z, a, s) => { const [x, y] = promote(z, a, s); return x.ge(y); } },
  { name: 'LTE', form: 'terms', min: 2, max: 2, sort: comparison('LTE'), compile: (z, a, s) => { const [x, y] = promote(z, a, s); return x.le(y); } },
  {
    name: 'PLUS', form: 'terms', min: 2, max: Infinity, sort: numeric('PLUS'),
    compile: (z, a, s) => { const p = promote(z, a, s); return p.slice(1).reduce((acc, t) => acc.add(t), p[0]); },
  },
  {
    // one argument is negation; two is subtraction (more would hide an associativity choice)
    name: 'MINUS', form: 'terms', min: 1, max: 2, sort: numeric('MINUS'),
    compile: (z, a, s) => { const p = promote(z, a, s); return p.length === 1 ? p[0].neg() : p[0].sub(p[1]); },
  },
  {
    name: 'MULT', form: 'terms', min: 2, max: Infinity, sort: numeric('MULT'),
    compile: (z, a, s) => { const p = promote(z, a, s); return p.slice(1).reduce((acc, t) => acc.mul(t), p[0]); },
  },
  {
    // Int/Int is SMT-LIB `div` (Euclidean: the remainder is never negative); any Real makes it `/`.
    // Division by zero is left unspecified as in SMT-LIB: the solver may pick any value for it.
    name: 'DIV', form: 'terms', min: 2, max: 2, sort: numeric('DIV'),
    compile: (z, a, s) => { const [x, y] = promote(z, a, s); return x.div(y); },
  },
  {
    name: 'MOD', form: 'terms', min: 2, max: 2, sort: numeric('MOD', { intOnly: true }),
    compile: (z, a) => (a[0] as Z3Arith).mod(a[1] as Z3Arith),
  },
  {
    // The parser only admits an integer literal exponent in [0, MAX_POW_EXPONENT]; it becomes a
    // product, so z3 never meets its partial `^` (0^0, negative or symbolic exponents, Real results).
    name: 'POW', form: 'terms', min: 2, max: 2,
    sort: (args) => {
      if (!isNum(args[0])) throw new SortError(`POW base must be Int or Real, got ${args[0]}`);
      if (args[1] !== 'Int') throw new SortError('POW exponent must be an integer literal');
      return args[0];
    },
    compile: (z, a, s) => {
      const n = Number((a[1] as IntNum<'logic'>).value());
      const base = a[0] as Z3Arith;
      if (n === 0) return s[0] === 'Real' ? z.Real.val(1) : z.Int.val(1);
      let out = base;
      for (let i = 1; i < n; i++) out = out.mul(base);
      return out;
    },
  },
  {
    name: 'ITE', form: 'terms', min: 3, max: 3,
    sort: ([c, a, b]) => {
      if (c !== 'Bool') throw new SortError(`ITE condition must be Bool, got ${c}`);
      if (isNum(a) !== isNum(b)) throw new SortError(`ITE branches differ: ${a} and ${b}`);
      return a === 'Bool' ? 'Bool' : a === 'Real' || b === 'Real' ? 'Real' : 'Int';
    },
    compile: (z, a, s) => {
      const [x, y] = s[1] === 'Bool' ? [a[1], a[2]] : promote(z, a.slice(1), s.slice(1));
      return z.If(a[0] as Z3Bool, x, y) as Z3Term;
    },
  },
  // arity counts the binder list and the body; `sort` sees only the body
  {
    name: 'FORALL', form: 'binder', min: 2, max: 2, sort: allBool('FORALL'),
    compile: (z, a, _s, bound) => z.ForAll(bound as [Z3Arith, ...Z3Arith[]], a[0] as Z3Bool),
  },
  {
    name: 'EXISTS', form: 'binder', min: 2, max: 2, sort: allBool('EXISTS'),
    compile: (z, a, _s, bound) => z.Exists(bound as [Z3Arith, ...Z3Arith[]], a[0] as Z3Bool),
  },
  { name: 'VAR', form: 'decl', min: 2, max: 2, sort: () => 'Bool', compile: () => { throw new Error('VAR is a declaration'); } },
];

export const OPS: ReadonlyMap<string, OpSpec> = new Map(table.map((op) => [op.name, op]));

/** Operators match case-insensitively (the corpus generator upper-cases them); names do not. */
export function lookupOp(token: string): OpSpec | undefined {
  return OPS.get(token.toUpperCase());
}
