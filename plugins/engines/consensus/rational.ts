/**
 * A small exact-rational arithmetic engine: numbers, + - * / ^ (integer exponents), parentheses and
 * at most one '='. It is a second, independent implementation of plain arithmetic (its own parser,
 * BigInt fractions) so consensus can compare engines that share no code, and it is the one place
 * that decides whether an arithmetic query can be restated for the logic engine.
 */

export interface Q {
  n: bigint;
  d: bigint;
}

export type Node = { t: 'num'; v: Q; text: string } | { t: 'neg'; a: Node } | { t: 'bin'; op: '+' | '-' | '*' | '/' | '^'; a: Node; b: Node };

export const LIMITS = { chars: 1000, depth: 64, exponent: 1024, digits: 10_000 } as const;

export class ArithRefusal extends Error {
  constructor(
    readonly reason: 'syntax' | 'division_by_zero' | 'cost' | 'non_integer_exponent',
    message: string,
  ) {
    super(message);
  }
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function q(n: bigint, d = 1n): Q {
  if (d === 0n) throw new ArithRefusal('division_by_zero', 'division by zero');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

export function formatQ(v: Q): string {
  return v.d === 1n ? `${v.n}` : `${v.n}/${v.d}`;
}

const TOKEN = /\s*(\d+(?:\.\d+)?|\.\d+|\*\*|[-+*/^()=])/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    if (!m) throw new ArithRefusal('syntax', `unexpected character at ${at}`);
    out.push(m[1] === '**' ? '^' : m[1]);
    at = TOKEN.lastIndex;
  }
  return out;
}

function literal(text: string): Q {
  const [int, frac = ''] = text.split('.');
  return q(BigInt((int || '0') + frac), 10n ** BigInt(frac.length));
}

/** Parses `expr` or `expr = expr`. Implicit multiplication ("2(3)") is refused, never guessed. */
export function parseArith(src: string): { left: Node; right?: Node } {
  if (src.length > LIMITS.chars) throw new ArithRefusal('cost', `longer than ${LIMITS.chars} characters`);
  const toks = tokenize(src);
  let i = 0;
  let depth = 0;
  const peek = () => toks[i];
  const expect = (s: string) => {
    if (toks[i] !== s) throw new ArithRefusal('syntax', `expected ${s}`);
    i++;
  };
  const expr = (): Node => {
    let a = term();
    while (peek() === '+' || peek() === '-') {
      const op = toks[i++] as '+' | '-';
      a = { t: 'bin', op, a, b: term() };
    }
    return a;
  };
  const term = (): Node => {
    let a = unary();
    while (peek() === '*' || peek() === '/') {
      const op = toks[i++] as '*' | '/';
      a = { t: 'bin', op, a, b: unary() };
    }
    return a;
  };
  const unary = (): Node => {
    if (++depth > LIMITS.depth) throw new ArithRefusal('cost', 'nested too deeply');
    try {
      if (peek() === '-') {
        i++;
        return { t: 'neg', a: unary() };
      }
      if (peek() === '+') {
        i++;
        return unary();
      }
      const base = atom();
      // right-associative, and binds tighter than unary minus on its left: -2^2 = -(2^2)
      if (peek() === '^') {
        i++;
        return { t: 'bin', op: '^', a: base, b: unary() };
      }
      return base;
    } finally {
      depth--;
    }
  };
  const atom = (): Node => {
    const tok = peek();
    if (tok === '(') {
      i++;
      const e = expr();
      expect(')');
      return e;
    }
    if (tok !== undefined && /^[\d.]/.test(tok)) {
      i++;
      return { t: 'num', v: literal(tok), text: tok };
    }
    throw new ArithRefusal('syntax', tok === undefined ? 'unexpected end' : `unexpected ${tok}`);
  };
  const left = expr();
  let right: Node | undefined;
  if (peek() === '=') {
    i++;
    right = expr();
  }
  if (i !== toks.length) throw new ArithRefusal('syntax', `unexpected ${toks[i]}`);
  return { left, right };
}

function digits(v: Q): number {
  return (v.n < 0n ? -v.n : v.n).toString().length + v.d.toString().length;
}

export function evaluate(node: Node): Q {
  switch (node.t) {
    case 'num':
      return node.v;
    case 'neg': {
      const a = evaluate(node.a);
      return { n: -a.n, d: a.d };
    }
    case 'bin': {
      const a = evaluate(node.a);
      const b = evaluate(node.b);
      let r: Q;
      switch (node.op) {
        case '+':
          r = q(a.n * b.d + b.n * a.d, a.d * b.d);
          break;
        case '-':
          r = q(a.n * b.d - b.n * a.d, a.d * b.d);
          break;
        case '*':
          r = q(a.n * b.n, a.d * b.d);
          break;
        case '/':
          if (b.n === 0n) throw new ArithRefusal('division_by_zero', 'division by zero');
          r = q(a.n * b.d, a.d * b.n);
          break;
        case '^': {
          if (b.d !== 1n) throw new ArithRefusal('non_integer_exponent', 'non-integer exponent (result may be irrational)');
          const e = b.n < 0n ? -b.n : b.n;
          if (e > BigInt(LIMITS.exponent) || digits(a) * Number(e) > LIMITS.digits) throw new ArithRefusal('cost', 'power too large');
          if (b.n < 0n && a.n === 0n) throw new ArithRefusal('division_by_zero', 'zero to a negative power');
          r = b.n < 0n ? q(a.d ** e, a.n ** e) : q(a.n ** e, a.d ** e);
          break;
        }
      }
      if (digits(r) > LIMITS.digits) throw new ArithRefusal('cost', 'intermediate value too large');
      return r;
    }
  }
}

function dslNumber(text: string): string {
  const [int, frac] = text.split('.');
  return `${int || '0'}.${frac ?? '0'}`;
}

/**
 * The same claim in the logic engine's DSL, or null when it cannot be stated faithfully there:
 * every literal is written as a Real (so DIV is exact division, not SMT-LIB integer div), and POW
 * needs a literal exponent 0–64. Division by zero must be excluded before (the DSL leaves x/0 free).
 */
export function toDsl(node: Node): string | null {
  switch (node.t) {
    case 'num':
      return dslNumber(node.text);
    case 'neg': {
      const a = toDsl(node.a);
      return a === null ? null : `(MINUS ${a})`;
    }
    case 'bin': {
      const a = toDsl(node.a);
      if (a === null) return null;
      if (node.op === '^') {
        if (node.b.t !== 'num' || node.b.v.d !== 1n || node.b.v.n > 64n) return null;
        return `(POW ${a} ${node.b.v.n})`;
      }
      const b = toDsl(node.b);
      if (b === null) return null;
      const op = { '+': 'PLUS', '-': 'MINUS', '*': 'MULT', '/': 'DIV' }[node.op];
      return `(${op} ${a} ${b})`;
    }
  }
}
