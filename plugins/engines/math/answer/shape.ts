import { C, MathRefusal } from '../errors.js';
import { normalizeMathInput } from '../normalize.js';
import { MAX_INPUT_CHARS, parsePlain } from '../syntax.js';
import { Reader, constantNode, stripDelimiters, toPlain, type DecimalSeparator, type LNode } from '../latex/index.js';
import type { Ast } from '../ast.js';

/** one value of an answer: its tree for the engine, or an infinity (an interval's end, `\infty`) */
export type Value = { ast: Ast; plain: string } | { inf: 1 | -1; plain: string };

export type Shape =
  | { kind: 'value'; v: Value }
  /** `list`: written bare (`1, 1, 2`), compared item for item as a multiset, where `\{…\}` is a set */
  | { kind: 'set'; items: Value[]; list?: true }
  | { kind: 'interval'; lo: Value; hi: Value; loClosed: boolean; hiClosed: boolean }
  | { kind: 'tuple'; items: Value[] }
  | { kind: 'text'; v: string }
  /** a union of intervals, `(-\infty, 2) \cup (3, \infty)` */
  | { kind: 'union'; parts: Array<Extract<Shape, { kind: 'interval' }>> }
  /** `\begin{pmatrix}…\end{pmatrix}`: rows of values (a column vector is n rows of one) */
  | { kind: 'matrix'; rows: Value[][] }
  /** `2x - 3y = 6`: an equation as an answer (a line, a curve) */
  | { kind: 'equation'; l: Value; r: Value };

export interface Answer {
  shape: Shape;
  /** written with a trailing percent sign (`50\%`): the value is then 50, the percent kept aside */
  percent: boolean;
  /** with a percent sign: the shape read as the fraction it denotes (50/100) */
  fraction?: Shape;
  /** a trailing unit or word (`\text{ cm}`, `^\circ`, a leading `\$`), lower-cased, spaces collapsed */
  unit: string | null;
  /** with `^\circ`: the angle read in radians (45° → 45·π/180) */
  radians?: Shape;
  /** a model's `m + n = 47` read as the equation it is, for an `expected` that is an equation too */
  asEquation?: Answer;
}

function refuse(what: string): never {
  throw new MathRefusal(C.disallowed, `Disallowed construct in answer: ${what}.`, { construct: what });
}

const unitText = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
/** one unit under one name: `dollars` is the `\$` written before a number */
const unitName = (s: string) => {
  const u = unitText(s);
  return /^(?:dollars?|usd)$/.test(u) ? '$' : u;
};

function value(n: LNode): Value {
  if (n.k === 'inf') return { inf: 1, plain: 'inf' };
  if (n.k === 'neg' && n.a.k === 'inf') return { inf: -1, plain: '-inf' };
  if (n.k === 'op' && n.op === '+' && n.a.k === 'inf') return value(n.a);
  if (n.k === 'delim' && n.items.length === 1 && n.open === '(') return value(n.items[0]);
  const plain = toPlain(n);
  const sides = parsePlain(plain);
  if (sides.length !== 1) refuse("an '=' inside a value");
  return { ast: sides[0], plain };
}

const isName = (n: LNode) => n.k === 'sym' && !['pi', 'e', 'i'].includes(n.v);

/** `x = 3` → 3, `(x, y) = (3, 4)` → (3, 4): names on the left of one `=` are dropped, as graders do */
function dropName(n: LNode): LNode {
  if (n.k !== 'rel' || n.ops.length !== 1 || n.ops[0] !== '=') return n;
  const [l, r] = n.items;
  if (isName(l)) return r;
  if (l.k === 'delim' && l.open === '(' && l.items.length > 1 && l.items.every(isName) && r.k === 'delim' && r.items.length === l.items.length) return r;
  return n;
}

/**
 * In a model's answer (never in `expected`, where `2x - 3y = 6` is a line): a chain of `=` ending
 * in a variable-free side (`m + n = 47`, `\frac12 \cdot 3 \cdot 10 = 15`) is that last side, the value
 * the text arrives at — when every side is an expression (`x = 2 \text{ or } x = 3` is no computation).
 */
function lastSide(n: LNode): LNode {
  if (n.k !== 'rel' || n.ops.some((o) => o !== '=') || dropName(n) !== n) return n;
  const last = n.items[n.items.length - 1];
  return constantNode(last) && n.items.every(plainable) ? last : n;
}

function plainable(n: LNode): boolean {
  try {
    toPlain(n);
    return true;
  } catch {
    return false;
  }
}



/** `a < x \le b`, `x > a`, `x \le b` → an interval; anything else with a relation is refused */
function fromRelation(n: Extract<LNode, { k: 'rel' }>): Shape {
  const infinite = (s: 1 | -1): Value => ({ inf: s, plain: s > 0 ? 'inf' : '-inf' });
  if (n.ops.some((o) => o === '=' || o === '!=')) refuse('a relation other than an interval');
  const flip = (o: string) => (o === '<' ? '>' : o === '>' ? '<' : o === '<=' ? '>=' : '<=');
  if (n.items.length === 2) {
    let [a, b] = n.items;
    let op: string = n.ops[0];
    if (isName(b) && !isName(a)) [a, b, op] = [b, a, flip(op)];
    if (!isName(a)) refuse('an inequality without a variable on one side');
    const bound = value(b);
    if (op === '<' || op === '<=') return { kind: 'interval', lo: infinite(-1), hi: bound, loClosed: false, hiClosed: op === '<=' };
    return { kind: 'interval', lo: bound, hi: infinite(1), loClosed: op === '>=', hiClosed: false };
  }
  if (n.items.length === 3 && isName(n.items[1])) {
    const [o1, o2] = n.ops;
    const up = (o: string) => o === '<' || o === '<=';
    if (up(o1) !== up(o2)) refuse('an inequality chain that changes direction');
    const [lo, hi] = up(o1) ? [n.items[0], n.items[2]] : [n.items[2], n.items[0]];
    const [cl, ch] = up(o1) ? [o1 === '<=', o2 === '<='] : [o2 === '>=', o1 === '>='];
    return { kind: 'interval', lo: value(lo), hi: value(hi), loClosed: cl, hiClosed: ch };
  }
  return refuse('a relation');
}

/** elements of one set, list or tuple: sets are matched pairwise, so their size is bounded */
export const MAX_ITEMS = 64;
/** intervals of one union (matched pairwise, two endpoints each) */
export const MAX_UNION_PARTS = 16;

function items(xs: LNode[]): LNode[] {
  if (xs.length > MAX_ITEMS) throw new MathRefusal(C.cost, `An answer holds more than ${MAX_ITEMS} elements.`, { limit: 'answer_items', max: MAX_ITEMS });
  return xs;
}

function shapeOf(node: LNode): Shape {
  const n = dropName(node);
  switch (n.k) {
    case 'list':
      // `x \le -1 \text{ or } x \ge 1`: inequalities joined by `or` are a union
      if (n.or && n.items.every((x) => x.k === 'rel' && !x.ops.includes('='))) return shapeOf({ k: 'union', items: n.items });
      return { kind: 'set', items: items(n.items).map((x) => value(dropName(x))), list: true };
    case 'pm': {
      // `\pm 2` (no left operand) is {2, −2}
      if (n.lead) return { kind: 'set', items: [value(n.b), value({ k: 'neg', a: n.b })] };
      const plus: LNode = { k: 'op', op: '+', a: n.a, b: n.b };
      const minus: LNode = { k: 'op', op: '-', a: n.a, b: n.b };
      return { kind: 'set', items: [value(plus), value(minus)] };
    }
    case 'in':
      if (!isName(n.a)) refuse("'\\in' without a variable on its left");
      return shapeOf(n.b);
    case 'rel':
      if (n.ops.length === 1 && n.ops[0] === '=' && n.items.every(plainable)) return { kind: 'equation', l: value(n.items[0]), r: value(n.items[1]) };
      return fromRelation(n);
    case 'union': {
      // each pair of parts costs two endpoint proofs, both ways: a union is kept short
      if (n.items.length > MAX_UNION_PARTS) throw new MathRefusal(C.cost, `A union of more than ${MAX_UNION_PARTS} intervals.`, { limit: 'union_parts', max: MAX_UNION_PARTS });
      // in a union, `(a, b)` with finite ends is the open interval, not a pair
      const parts = n.items.map(shapeOf).map((p): Shape => (p.kind === 'tuple' && p.items.length === 2 ? { kind: 'interval', lo: p.items[0], hi: p.items[1], loClosed: false, hiClosed: false } : p));
      if (!parts.every((p): p is Extract<Shape, { kind: 'interval' }> => p.kind === 'interval')) return refuse("'\\cup' of something other than intervals");
      return { kind: 'union', parts };
    }
    case 'matrix': {
      items(n.rows.flat());
      return { kind: 'matrix', rows: n.rows.map((r) => r.map(value)) };
    }
    case 'delim': {
      if (n.open === '{') return { kind: 'set', items: items(n.items).map((x) => value(dropName(x))) };
      const round = n.open === '(' && n.close === ')';
      if (round && n.items.length === 1) return shapeOf(n.items[0]);
      const infinite = n.items.some((x) => x.k === 'inf' || (x.k === 'neg' && x.a.k === 'inf'));
      if (n.items.length === 2 && (!round || infinite)) {
        const [lo, hi] = n.items.map(value);
        return { kind: 'interval', lo, hi, loClosed: n.open === '[', hiClosed: n.close === ']' };
      }
      if (n.items.length >= 2 && (round || n.open === '[')) return { kind: 'tuple', items: items(n.items).map(value) };
      return refuse('a half-open bracket around one value');
    }
    default:
      return { kind: 'value', v: value(n) };
  }
}

/** splits a trailing unit off: `5\text{ cm}`, `30^\circ`, `12 \text{apples}` */
function unitOff(n: LNode): { node: LNode; unit: string | null } {
  // `25^\circ\text{C}`, `25^\circ F`: a temperature, the degree sign part of its unit
  if (n.k === 'op' && n.op === '*' && n.implicit && n.a.k === 'deg' && (n.b.k === 'text' || n.b.k === 'sym') && /^[CFK]$/.test(n.b.v.trim())) return { node: n.a.a, unit: `°${n.b.v.trim().toLowerCase()}` };
  if (n.k === 'op' && n.op === '*' && n.implicit && n.b.k === 'text') return { node: n.a, unit: unitName(n.b.v) };
  // `15\mbox{ cm}^2`: a unit with a power
  if (n.k === 'op' && n.op === '*' && n.implicit && n.b.k === 'op' && n.b.op === '^' && n.b.a.k === 'text' && n.b.b.k === 'num') return { node: n.a, unit: `${unitText(n.b.a.v)}^${n.b.b.v}` };
  if (n.k === 'deg') return { node: n.a, unit: 'degree' };
  return { node: n, unit: null };
}

/**
 * Reads one final answer (docs/engines/math.md, "Answer equivalence"): delimiters and a final
 * full stop are dropped, `\$` before it and one trailing unit (`\text{…}`, `^\circ`, words of three
 * letters or more after a number) are kept aside as its unit, a
 * trailing percent sign aside as `percent`; a whole `\text{…}`, or text with a run of three letters
 * and no LaTeX, is a text answer.
 */
export function readAnswer(raw: string, dec: DecimalSeparator, role: 'answer' | 'expected'): Answer {
  // `\mathbb{R}` (alone, or after `\in`) is the whole real line
  let s = stripDelimiters(normalizeMathInput(raw)).replace(/\\mathbb\s*(?:\{\s*R\s*\}|R\b)/g, '(-\\infty, \\infty)');
  if (s.length > MAX_INPUT_CHARS) throw new MathRefusal(C.inputTooLong, `Answer exceeds ${MAX_INPUT_CHARS} characters.`, { max_chars: MAX_INPUT_CHARS });
  if (s === '') throw new MathRefusal(C.parseError, 'The answer is empty.', { error: 'parse_error' });
  let unit: string | null = null;
  const dollar = /^\\\$\s*|^\$(?=\s*\d)/.exec(s);
  if (dollar) {
    unit = '$';
    s = s.slice(dollar[0].length);
  }
  // a choice label: one capital letter, alone or in round brackets, bare or in `\text{…}` (`\textbf{(C)}`)
  const choice = /^(?:\\(?:text|textbf|mathrm|mathbf|textrm)\s*\{\s*)?(?:\(\s*([A-Z])\s*\)|([A-Z]))(?:\s*\})?$/.exec(s);
  if (choice && s.startsWith('\\') === s.endsWith('}')) return { shape: { kind: 'text', v: (choice[1] ?? choice[2]).toLowerCase() }, percent: false, unit: null };
  // a number in a base (`1011_2`, `10_{12}`): compared as written, digits and base, never converted
  const based = /^([0-9A-Z]+)_\{?(\d{1,2})\}?$/.exec(s);
  if (based) return { shape: { kind: 'text', v: `${based[1]}_${based[2]}`.toLowerCase() }, percent: false, unit: null };
  let whole = /^\\(?:text|textbf|mbox|textrm)\s*\{([^{}]*)\}$/.exec(s);
  // `\text{5 hours}`: a number with its words inside one \text is read as `5 hours`
  if (whole && /^\s*-?\d[\d.,]*\s+[A-Za-z]/.test(whole[1])) {
    s = whole[1].trim();
    whole = null;
  }
  if (whole || /^(?:yes|no|true|false|none)$/i.test(s) || (!/[\\{}$\d]/.test(s) && /[A-Za-z]{3,}/.test(s) && !/^[a-z]+\(/.test(s))) {
    return { shape: { kind: 'text', v: unitText((whole ? whole[1] : s).replace(/[.]$/, '')) }, percent: false, unit: null };
  }
  // a number followed by words (`5 apples`, `12 dollars`): the words are its unit
  const words = /^(.*\d[^A-Za-z\\]*?)\s+([A-Za-z]{3,}(?: [A-Za-z]+)*)$/.exec(s);
  if (words && !/[A-Za-z]/.test(words[1])) {
    if (unit !== null) refuse('two units');
    unit = unitName(words[2]);
    s = words[1];
  }
  const node = Reader.read(s, dec);
  const last = role === 'answer' ? lastSide(node) : node;
  if (last === node) return fromNode(node, unit);
  // an equation arriving at a value: the value, unless `expected` is itself an equation (verdict.ts)
  let asEquation: Answer | undefined;
  try {
    asEquation = fromNode(node, unit);
  } catch {
    asEquation = undefined;
  }
  return { ...fromNode(last, unit), ...(asEquation ? { asEquation } : {}) };
}

function fromNode(n: LNode, dollar: string | null): Answer {
  let node = n;
  let unit = dollar;
  const u = unitOff(node);
  const radians = node.k === 'deg' ? shapeOf(node) : undefined;
  if (u.unit !== null) {
    if (unit !== null) refuse('two units');
    unit = u.unit;
    node = u.node;
  }
  if (radians) return { shape: shapeOf(node), percent: false, unit, radians };
  if (node.k === 'pct') return { shape: shapeOf(node.a), percent: true, fraction: shapeOf(node), unit };
  // `28 percent` is `28\%`
  if (unit !== null && /^(?:percent|per cent|pct)$/.test(unit)) return { shape: shapeOf(node), percent: true, fraction: shapeOf({ k: 'pct', a: node }), unit: null };
  return { shape: shapeOf(node), percent: false, unit };
}

export function showShape(s: Shape): string {
  const v = (x: Value) => x.plain;
  switch (s.kind) {
    case 'value':
      return v(s.v);
    case 'set':
      return `{${s.items.map(v).join(', ')}}`;
    case 'interval':
      return `${s.loClosed ? '[' : '('}${v(s.lo)}, ${v(s.hi)}${s.hiClosed ? ']' : ')'}`;
    case 'tuple':
      return `(${s.items.map(v).join(', ')})`;
    case 'text':
      return JSON.stringify(s.v);
    case 'union':
      return s.parts.map(showShape).join(' U ');
    case 'matrix':
      return `[${s.rows.map((r) => `[${r.map(v).join(', ')}]`).join(', ')}]`;
    case 'equation':
      return `${v(s.l)} = ${v(s.r)}`;
  }
}
