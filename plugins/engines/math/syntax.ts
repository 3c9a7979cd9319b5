import type { MathNode } from 'mathjs';
import { create, all } from './mathjs.js';
import { Q } from './field.js';
import { C, MathRefusal } from './errors.js';
import { FUNCTION_SET, type Ast, type FnName } from './ast.js';
import { gluedDigits, normalizeMathInput } from './normalize.js';
import { isLatex, readLatexExpression, type DecimalSeparator } from './latex/index.js';

export const MAX_INPUT_CHARS = 5000;
export const MAX_DEPTH = 64;
export const MAX_LITERAL_DIGITS = 300;

// BigNumber literals keep decimals exact (0.1 stays 1/10); the tree is walked by us, never evaluated by mathjs.
const math = create(all, { number: 'BigNumber', precision: 64 });

export interface Parsed {
  /** NFKC-normalised input, as bound into the proof evidence */
  normalized: string;
  sides: Ast[];
  /** the plain-syntax reading of a LaTeX input (what the sides were parsed from) */
  readAs?: string;
  /** an inequality or `≠` between the two sides (LaTeX input only); absent for an equation */
  relation?: '<' | '>' | '<=' | '>=' | '!=';
}

export interface ParseOptions {
  /** how the LaTeX reader reads `,` and `.` between digits (docs/engines/math.md, "Numbers") */
  decimalSeparator?: DecimalSeparator;
}

/**
 * Token-level pass over the normalised text: rewrites the `**` operator to `^` (outside string
 * literals, where it is no operator), finds the equation's `=` (never part of `==`, `<=`, `>=`,
 * `!=`), and bounds bracket nesting before mathjs's recursive parser sees the text.
 */
export function lex(text: string): { text: string; equals: number[] } {
  let out = '';
  const equals: number[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' || ch === "'") {
      // copy the string literal verbatim; the tree check refuses it with a precise reason
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
      continue;
    }
    if (ch === '#') throw disallowed('comment');
    if (ch === '*' && text[i + 1] === '*') {
      out += '^';
      i++;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') {
      if (++depth > MAX_DEPTH) {
        throw new MathRefusal(C.depthExceeded, `Expression nesting exceeds ${MAX_DEPTH} levels.`, { max_depth: MAX_DEPTH });
      }
    } else if (ch === ')' || ch === ']' || ch === '}') depth--;
    if (ch === '=' && !'<>!='.includes(text[i - 1] ?? '') && text[i + 1] !== '=') equals.push(out.length);
    out += ch;
  }
  return { text: out, equals };
}

/**
 * mathjs reports a syntax error by throwing; an equation's whole-text parse (below) throws on every
 * ordinary equation. The stack such an error captures is never read, and capturing it was a visible
 * share of the worker's time, so parsing runs with stack capture off.
 */
function parseQuiet(text: string): MathNode {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return math.parse(text);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function parseText(text: string): MathNode {
  try {
    return parseQuiet(text);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new MathRefusal(C.depthExceeded, `Expression nesting exceeds ${MAX_DEPTH} levels.`, { max_depth: MAX_DEPTH });
    }
    const msg = String((err as Error)?.message ?? 'syntax error').slice(0, 200);
    throw new MathRefusal(C.parseError, `Expression could not be parsed: ${msg}`, { error: 'parse_error' });
  }
}

function parseOrUndefined(text: string): MathNode | undefined {
  try {
    return parseQuiet(text);
  } catch {
    return undefined;
  }
}

/** the left-hand sides mathjs's parseAssignment turns into an assignment when `=` follows them */
function mayAssign(n: MathNode): boolean {
  return n.type === 'SymbolNode' || n.type === 'AccessorNode' || (n.type === 'FunctionNode' && (n as any).fn?.type === 'SymbolNode');
}

/** text that holds no symbol, call, index or string: digits, `.`, arithmetic operators, round brackets, spaces */
const NUMERIC_ONLY = /^[0-9.+\-*/^() ]*$/;

export function parseInput(raw: string, opts: ParseOptions = {}): Parsed {
  if (raw.length > MAX_INPUT_CHARS) {
    throw new MathRefusal(C.inputTooLong, `Expression exceeds ${MAX_INPUT_CHARS} characters.`, { max_chars: MAX_INPUT_CHARS });
  }
  const glued = gluedDigits(raw);
  if (glued !== undefined) {
    const cp = `U+${glued.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new MathRefusal(C.parseError, `'${glued}' (${cp}) is not a digit: write the number or operation it stands for in plain digits.`, { error: 'parse_error', character: cp });
  }
  const normalized = normalizeMathInput(raw);
  if (normalized.length > MAX_INPUT_CHARS) {
    throw new MathRefusal(C.inputTooLong, `Expression exceeds ${MAX_INPUT_CHARS} characters.`, { max_chars: MAX_INPUT_CHARS });
  }
  if (normalized === '') throw new MathRefusal(C.parseError, 'Expression is empty.', { error: 'parse_error' });
  if (!isLatex(normalized)) return { normalized, sides: parsePlain(normalized) };
  const reading = readLatexExpression(normalized, opts.decimalSeparator);
  if (reading.plain.length > MAX_INPUT_CHARS) {
    throw new MathRefusal(C.inputTooLong, `Expression exceeds ${MAX_INPUT_CHARS} characters.`, { max_chars: MAX_INPUT_CHARS });
  }
  if (!reading.relation) return { normalized, sides: parsePlain(reading.plain), readAs: reading.plain };
  const sides = [reading.relation.left, reading.relation.right].map((t) => {
    const s = parsePlain(t);
    if (s.length !== 1) throw new MathRefusal(C.parseError, "A side of a relation holds an '='.", { error: 'parse_error' });
    return s[0];
  });
  return { normalized, sides, readAs: reading.plain, relation: reading.relation.op };
}

/** the plain syntax: one expression, or the two sides of an equation */
export function parsePlain(normalized: string): Ast[] {
  const { text, equals } = lex(normalized);
  if (equals.length > 1) {
    throw new MathRefusal(C.parseError, "An equation must contain exactly one '='.", { error: 'parse_error' });
  }
  let texts = [text];
  // the left side parsed once, when it was parsed to decide on the whole-text parse below
  let left: MathNode | undefined;
  if (equals.length === 1) {
    texts = [text.slice(0, equals[0]), text.slice(equals[0] + 1)];
    // the whole text first: mathjs recognises `f(x) = …` (a function definition) and `a.b = …` only this way
    let whole: MathNode | null = null;
    // a left side of numbers, operators and brackets alone can be neither a name nor a call, so mathjs
    // would only throw here: skipping that failed parse (an error built and thrown) halves plain arithmetic
    if (!NUMERIC_ONLY.test(texts[0])) {
      left = parseOrUndefined(texts[0]);
      // mathjs reads `L = R` as an assignment only when L is a name, an accessor or a call of a name;
      // for any other L that parsed, the whole-text parse could only throw (a second parse of L and
      // an error built), so it runs only for those L or an L that did not parse alone
      if (left === undefined || mayAssign(left)) {
        try {
          whole = parseQuiet(text);
        } catch {
          whole = null;
        }
      }
    }
    // `sin(x) = …` parses as a function definition too; only a definition of a name we do not know is one
    if (whole?.type === 'FunctionAssignmentNode' && !FUNCTION_SET.has((whole as any).name) && !RECIPROCAL[(whole as any).name]) throw disallowed('function definition');
    if (whole?.type === 'AssignmentNode' && (whole as any).object?.type !== 'SymbolNode') throw disallowed('assignment');
    if (texts.some((t) => t.trim() === '')) throw new MathRefusal(C.parseError, "Both sides of '=' must be expressions.", { error: 'parse_error' });
  }
  const nodes = texts.map((t, i) => (i === 0 && left !== undefined ? left : parseText(t)));
  const state = { ambiguous: null as null | { node: string; readings: [string, string] } };
  const sides = nodes.map((n) => convert(n, 1, state));
  if (state.ambiguous) {
    const [a, b] = state.ambiguous.readings;
    throw new MathRefusal(
      C.ambiguous,
      `Implicit multiplication directly after a division is ambiguous: it could mean ${a} or ${b}. Write the multiplication explicitly.`,
      {
        is_valid: false,
        result: false,
        warning: 'ambiguous',
        simplified: nodes.map((n) => n.toString()).join(' = '),
        interpretations: [a, b],
      },
    );
  }
  return sides;
}

function disallowed(construct: string): MathRefusal {
  return new MathRefusal(C.disallowed, `Disallowed construct in expression: ${construct}.`, { construct });
}

const CONSTANTS: Record<string, 'pi' | 'e' | 'i'> = { pi: 'pi', PI: 'pi', 'π': 'pi', e: 'e', E: 'e', i: 'i' };

function symbol(name: string): Ast {
  const c = CONSTANTS[name];
  if (c) return { k: 'const', name: c };
  // `x_1`, `a_n`: an indexed name (LaTeX `x_{1}` reads as x_1)
  if (/^[A-Za-z\u0391-\u03A9\u03B1-\u03C9](_[A-Za-z0-9]{1,8})?$/u.test(name)) return { k: 'var', name };
  throw disallowed(`unknown symbol '${name.slice(0, 40)}'`);
}

/** `2ab` reaches us as 2 times the symbol `ab`: in an implicit product, a run of variable letters is their product */
function splitLetters(name: string): Ast | null {
  if (!/^[A-Za-z]{2,8}$/.test(name) || /[eiE]/.test(name) || FUNCTION_SET.has(name) || RECIPROCAL[name] || CONSTANTS[name]) return null;
  return [...name].map((l): Ast => ({ k: 'var', name: l })).reduce((a, b) => ({ k: 'mul', a, b }));
}

const ONE: Ast = { k: 'num', q: Q.parseDecimal('1') as Q, text: '1' };
const fn1 = (name: FnName, a: Ast): Ast => ({ k: 'fn', name, args: [a] });

/**
 * The reciprocal trigonometric functions and their inverses, read as what they are defined to be,
 * so every exact and approximate path of the engine treats them with no new rule: sec = 1/cos,
 * csc = 1/sin, cot = cos/sin (not 1/tan, which is undefined where cot is 0), asec(x) = acos(1/x),
 * acsc(x) = asin(1/x), acot(x) = atan(1/x) (SymPy's and mathjs's principal branch; undefined at 0).
 */
const RECIPROCAL: Record<string, (a: Ast) => Ast> = {
  sec: (a) => ({ k: 'div', a: ONE, b: fn1('cos', a) }),
  csc: (a) => ({ k: 'div', a: ONE, b: fn1('sin', a) }),
  cot: (a) => ({ k: 'div', a: fn1('cos', a), b: fn1('sin', a) }),
  asec: (a) => fn1('acos', { k: 'div', a: ONE, b: a }),
  acsc: (a) => fn1('asin', { k: 'div', a: ONE, b: a }),
  acot: (a) => fn1('atan', { k: 'div', a: ONE, b: a }),
};

const BINARY: Record<string, 'add' | 'sub' | 'mul' | 'div' | 'pow'> = {
  add: 'add', subtract: 'sub', multiply: 'mul', divide: 'div', pow: 'pow',
};

type State = { ambiguous: null | { node: string; readings: [string, string] } };

function isImplicitMul(n: any): boolean {
  return n?.type === 'OperatorNode' && n.fn === 'multiply' && n.implicit === true;
}

function singleLetterCall(n: any): boolean {
  return n?.type === 'FunctionNode' && n.fn?.type === 'SymbolNode' && !FUNCTION_SET.has(n.fn.name) && !RECIPROCAL[n.fn.name] && /^[A-Za-z]$|^[\u0391-\u03C9]$/u.test(n.fn.name);
}

function convert(node: MathNode, depth: number, state: State): Ast {
  if (depth > MAX_DEPTH) {
    throw new MathRefusal(C.depthExceeded, `Expression nesting exceeds ${MAX_DEPTH} levels.`, { max_depth: MAX_DEPTH });
  }
  const n = node as any;
  switch (node.type) {
    case 'ParenthesisNode':
      return convert(n.content, depth + 1, state);
    case 'ConstantNode':
      return constant(n.value);
    case 'SymbolNode':
      return symbol(n.name);
    case 'OperatorNode': {
      const args: MathNode[] = n.args;
      if (n.fn === 'unaryMinus' && args.length === 1) return { k: 'neg', a: convert(args[0], depth + 1, state) };
      if (n.fn === 'unaryPlus' && args.length === 1) return convert(args[0], depth + 1, state);
      if (n.fn === 'factorial' && args.length === 1) return { k: 'fn', name: 'factorial', args: [convert(args[0], depth + 1, state)] };
      const op = BINARY[n.fn];
      if (!op || args.length !== 2) throw disallowed(`operator '${String(n.op).slice(0, 10)}'`);
      detectAmbiguity(n, state);
      const [l, r] = args.map((a: any) => {
        if (n.implicit && a.type === 'SymbolNode' && !CONSTANTS[a.name] && a.name.length > 1) {
          const split = splitLetters(a.name);
          if (split) return split;
        }
        return convert(a, depth + 1, state);
      });
      if (op === 'pow' && l.k === 'const' && l.name === 'e') return { k: 'fn', name: 'exp', args: [r] };
      return { k: op, a: l, b: r };
    }
    case 'FunctionNode': {
      if (n.fn?.type !== 'SymbolNode') throw disallowed('call of a computed function');
      const name: string = n.fn.name;
      const rewrite = RECIPROCAL[name];
      if (rewrite) {
        if (n.args.length !== 1) throw disallowed(`${name} with ${n.args.length} arguments`);
        return rewrite(convert(n.args[0], depth + 1, state));
      }
      if (!FUNCTION_SET.has(name)) {
        // `a/b(c)` reaches here as a call of `b`; the division check above has already recorded it
        if (singleLetterCall(n) && state.ambiguous) return { k: 'var', name };
        throw disallowed(`unknown function '${name.slice(0, 40)}'`);
      }
      const arity = name === 'binomial' ? 2 : 1;
      if (n.args.length !== arity) throw disallowed(`${name} with ${n.args.length} arguments`);
      return { k: 'fn', name: name as FnName, args: n.args.map((a: MathNode) => convert(a, depth + 1, state)) };
    }
    default:
      throw disallowed(describe(node.type));
  }
}

function detectAmbiguity(n: any, state: State): void {
  if (state.ambiguous) return;
  const [l, r] = n.args;
  // (a/b)·c with the product implicit: mathjs reads `1/2(3+1)` as (1/2)·(3+1)
  if (isImplicitMul(n) && l.type === 'OperatorNode' && l.fn === 'divide') {
    const [a, b] = l.args.map((x: MathNode) => x.toString());
    const c = r.toString();
    state.ambiguous = { node: n.toString(), readings: [`(${a} / ${b}) * (${c})`, `${a} / (${b} * ${c})`] };
    return;
  }
  if (n.fn === 'divide' && (isImplicitMul(r) || singleLetterCall(r))) {
    const a = l.toString();
    const [b, c] = isImplicitMul(r) ? r.args.map((x: MathNode) => x.toString()) : [r.fn.name, r.args.map((x: MathNode) => x.toString()).join(', ')];
    state.ambiguous = { node: n.toString(), readings: [`(${a} / ${b}) * (${c})`, `${a} / (${b} * ${c})`] };
  }
}

function describe(type: string): string {
  const names: Record<string, string> = {
    AccessorNode: 'property access',
    ArrayNode: 'matrix',
    AssignmentNode: 'assignment',
    BlockNode: 'statement block',
    ConditionalNode: 'conditional',
    FunctionAssignmentNode: 'function definition',
    IndexNode: 'index',
    ObjectNode: 'object',
    RangeNode: 'range',
    RelationalNode: 'comparison',
  };
  return names[type] ?? type;
}

function constant(value: unknown): Ast {
  if (!math.isBigNumber(value)) throw disallowed(typeof value === 'string' ? 'string literal' : `constant ${String(value).slice(0, 20)}`);
  const bn = value as any;
  if (!bn.isFinite()) throw disallowed('non-finite constant');
  if (bn.e >= MAX_LITERAL_DIGITS || bn.e < -MAX_LITERAL_DIGITS || bn.sd() > MAX_LITERAL_DIGITS) {
    throw new MathRefusal(C.cost, `Numeric literal exceeds ${MAX_LITERAL_DIGITS} digits.`, { limit: 'literal_digits', max: MAX_LITERAL_DIGITS });
  }
  const text = bn.toFixed();
  const q = Q.parseDecimal(text);
  if (!q) throw new MathRefusal(C.parseError, 'Numeric literal could not be read.', { error: 'parse_error' });
  return { k: 'num', q, text };
}
