import { tokenize, type Tok } from './phrases.js';
import { decimalBelow, LogicReadError, translateLogic } from './local-logic.js';
import { ProviderError, type LogicTranslation, type MathTranslation, type Provider, type TranslationOf, type TranslationTarget } from './types.js';

/**
 * The built-in deterministic translator (decisions §7): plain arithmetic phrasing ("what is 12
 * times 7 plus 3", "is 15% of 80 equal to 12", "square root of 144") read by fixed rules into a
 * math-engine expression, plus the answer the text claims when it states one. It needs no network.
 * It is still a translation of English: the rules can misread a sentence, so its output is as
 * untrusted as a model's and the route never reports it as proven.
 */
export const LOCAL_PROVIDER = 'local';

/** a fixed self-report: the rules matched every word, which is not proof that they read it right */
export const LOCAL_CONFIDENCE = 0.9;

const MAX_TEXT = 2000;

/** `pct`: a bare percentage ("10%", not "10% of 80"), which English adds to other numbers as a share of them */
type Node = { k: 'num'; v: string } | { k: 'bin'; op: '+' | '-' | '*' | '/' | '^'; a: Node; b: Node; pct?: true } | { k: 'neg'; a: Node } | { k: 'fn'; f: string; a: Node };

/** a bare percentage, negated or summed with others */
const isPct = (n: Node): boolean => (n.k === 'bin' && (n.pct === true || ((n.op === '+' || n.op === '-') && isPct(n.a)))) || (n.k === 'neg' && isPct(n.a));

const PREC: Record<string, number> = { '+': 1, '-': 1, '*': 2, '/': 2, neg: 3, '^': 4 };

/** Prints with the fewest parentheses that keep the tree's meaning in the math engine's grammar. */
export function print(n: Node, parent = 0, right = false): string {
  let s: string;
  let p: number;
  if (n.k === 'num') return n.v.startsWith('-') && parent > 0 ? `(${n.v})` : n.v;
  if (n.k === 'fn') return `${n.f}(${print(n.a)})`;
  if (n.k === 'neg') {
    p = PREC.neg;
    s = `-${print(n.a, p)}`;
  } else {
    p = PREC[n.op];
    const rightAssoc = n.op === '^';
    s = `${print(n.a, p, rightAssoc)} ${n.op} ${print(n.b, p, !rightAssoc)}`;
  }
  return p < parent || (p === parent && right) ? `(${s})` : s;
}

class Parser {
  i = 0;
  /** token indexes of the last parenthesised group read: tells "of (16 plus 9)" from "of 16 plus 9" */
  private group = { start: -1, end: -1 };
  constructor(private readonly toks: Tok[]) {}
  peek(): Tok | undefined {
    return this.toks[this.i];
  }
  fail(): never {
    throw new ProviderError('cannot_translate', 'the local translator cannot read this text as arithmetic', LOCAL_PROVIDER);
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }
  expr(): Node {
    let a = this.term();
    for (let t = this.peek(); t?.t === 'op' && (t.v === '+' || t.v === '-'); t = this.peek()) {
      this.i++;
      const b = this.term();
      // "100 plus 10%" means 110 in English and 100.1 as arithmetic: only percentages add to percentages
      if (isPct(a) !== isPct(b)) this.fail();
      a = { k: 'bin', op: t.v, a, b };
    }
    return a;
  }
  term(): Node {
    let a = this.unary();
    for (let t = this.peek(); t?.t === 'op' && (t.v === '*' || t.v === '/'); t = this.peek()) {
      this.i++;
      a = { k: 'bin', op: t.v, a, b: this.unary() };
    }
    return a;
  }
  unary(): Node {
    const t = this.peek();
    if (t?.t === 'op' && t.v === '-') {
      this.i++;
      return { k: 'neg', a: this.unary() };
    }
    if (t?.t === 'op' && t.v === '+') {
      this.i++;
      return this.unary();
    }
    return this.power();
  }
  power(): Node {
    const base = this.postfix();
    const t = this.peek();
    if (t?.t === 'op' && t.v === '^') {
      this.i++;
      return { k: 'bin', op: '^', a: base, b: this.unary() };
    }
    if (t?.t === 'pow') {
      this.i++;
      return { k: 'bin', op: '^', a: base, b: this.operand() };
    }
    return base;
  }
  postfix(): Node {
    let a = this.primary();
    for (let t = this.peek(); t?.t === 'post'; t = this.peek()) {
      this.i++;
      a = { k: 'bin', op: '^', a, b: { k: 'num', v: String(t.v) } };
    }
    return a;
  }
  /**
   * The argument of a word operator ("square root of -4", "half of -10", "15% of 80", the second
   * term of "the sum of 2 and 3", the exponent of "to the power of"): a signed postfix term. English
   * does not say where such an argument ends — "the square root of 16 plus 9" is √16 + 9 or √25,
   * "the product of 2 and 3 plus 4" is 10 or 14, "2 to the power of 3 plus 1" is 9 or 16 — so one
   * followed by an operator is refused unless it is parenthesised.
   */
  operand(): Node {
    const start = this.i;
    const t = this.peek();
    let n: Node;
    if (t?.t === 'op' && t.v === '-') {
      this.i++;
      n = { k: 'neg', a: this.postfix() };
    } else n = this.postfix();
    const grouped = this.group.start === start && this.group.end === this.i;
    const next = this.peek()?.t;
    if (!grouped && (next === 'op' || next === 'pow')) this.fail();
    return n;
  }
  primary(): Node {
    const t = this.toks[this.i++];
    if (!t) this.fail();
    switch (t.t) {
      case 'num': {
        const n: Node = { k: 'num', v: t.v };
        if (this.peek()?.t !== 'percent') return n;
        this.i++;
        const pct: Node = { k: 'bin', op: '/', a: n, b: { k: 'num', v: '100' }, pct: true };
        if (this.peek()?.t !== 'of') return pct;
        this.i++;
        return { k: 'bin', op: '*', a: pct, b: this.operand() };
      }
      case '(': {
        const start = this.i - 1;
        const e = this.expr();
        if (this.toks[this.i++]?.t !== ')') this.fail();
        this.group = { start, end: this.i };
        return e;
      }
      case 'fn':
        return { k: 'fn', f: t.v, a: this.operand() };
      case 'neg': {
        // "negative 3 squared" is (-3)^2: the word makes a negative number, not a negation of the power
        const next = this.peek();
        if (next?.t === 'num') {
          this.i++;
          return { k: 'num', v: `-${next.v}` };
        }
        return { k: 'neg', a: this.postfix() };
      }
      case 'scale':
        return { k: 'bin', op: '*', a: { k: 'num', v: t.v }, b: this.operand() };
      case 'pair': {
        const a = this.expr();
        if (this.toks[this.i++]?.t !== 'and') this.fail();
        const b = this.operand();
        if (!t.between) return { k: 'bin', op: t.v, a, b };
        // "the difference between 3 and 10" is 7, not -7: the larger less the smaller
        if (a.k === 'num' && b.k === 'num') return decimalBelow(a.v, b.v) ? { k: 'bin', op: '-', a: b, b: a } : { k: 'bin', op: '-', a, b };
        return { k: 'fn', f: 'abs', a: { k: 'bin', op: '-', a, b } };
      }
      default:
        return this.fail();
    }
  }
}

/** The whole text as one expression, or null when the vocabulary or grammar does not cover it. */
export function readExpression(text: string): Node | null {
  const toks = tokenize(text);
  if (!toks || !toks.length || !toks.some((t) => t.t === 'num')) return null;
  const p = new Parser(toks);
  try {
    const n = p.expr();
    return p.done() ? n : null;
  } catch {
    return null;
  }
}

/** A claimed answer is a number (optionally negative or a percentage), never an expression. */
function readAnswer(text: string): string | null {
  const n = readExpression(text);
  if (!n) return null;
  const neg = n.k === 'neg';
  const inner = neg ? n.a : n;
  if (inner.k === 'num') return neg ? (inner.v.startsWith('-') ? inner.v.slice(1) : '-' + inner.v) : inner.v;
  if (inner.k === 'bin' && inner.op === '/' && inner.a.k === 'num' && inner.b.k === 'num' && inner.b.v === '100') {
    // "12%" as an answer: the exact decimal of n/100
    const [int, frac = ''] = inner.a.v.split('.');
    const digits = (int + frac).padStart(frac.length + 3, '0');
    const point = digits.length - frac.length - 2;
    const dec = `${digits.slice(0, point)}.${digits.slice(point)}`.replace(/^0+(?=\d)/, '').replace(/\.?0+$/, '');
    return (neg ? '-' : '') + (dec || '0');
  }
  return null;
}

const PREAMBLE = /^(?:(?:what(?:'s| is| does| do)?|how much is|how much does|calculate|compute|evaluate|work out|find|tell me|please)\s+)+/;
/** "is A equal to B", "does A equal B" */
const QUESTION_CLAIM = /^(?:is|does|do)\s+(.+?)(?:\s*=\s*|\s+(?:equal to|equals?|is|make|come to)\s+)(.+)$/;
/** "A equals B", "A is B", "A = B", "A makes B" */
const STATEMENT_CLAIM = /^(.+?)(?:\s*=\s*|\s+(?:is equal to|equals|is|makes|gives|comes to)\s+)(.+)$/;

const SUPERSCRIPT: Record<string, string> = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁺': '', '⁻': '-' };
/** superscripts and subscripts left after exponents are read: NFKC would make them plain digits and signs */
const SCRIPT = /[\u00B2\u00B3\u00B9\u2070-\u209F]/;

/** a number with an ellipsis ("0.333...", "0.666…" once NFKC has made it dots): a repeating decimal, not the digits shown */
const REPEATING = /\d\s*\.{2,}/;

/** null when the text holds superscripts or subscripts that are not an exponent, or a repeating decimal */
function normalise(text: string): string | null {
  // an exponent first: NFKC would glue "3²" into "32" and "10⁻³" into "10−3"
  const powers = text.replace(/[⁺⁻]?[⁰¹²³⁴-⁹]+/g, (m) => ` ^ (${[...m].map((c) => SUPERSCRIPT[c]).join('')})`);
  if (SCRIPT.test(powers)) return null;
  const folded = powers.normalize('NFKC');
  // the trailing-punctuation rule below would drop the dots and check "1/3 = 0.333"
  if (REPEATING.test(folded)) return null;
  return folded
    .toLowerCase()
    .replace(/[×]/g, '*')
    .replace(/[÷]/g, '/')
    .replace(/[−–]/g, '-')
    .replace(/[‘’]/g, "'")
    .replace(/[?!.]+\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const notMath = (reasoning: string): MathTranslation => ({
  is_math: false,
  expression: null,
  claimed_answer: null,
  claimed_answer_exact: null,
  reasoning,
  confidence: LOCAL_CONFIDENCE,
  provider: LOCAL_PROVIDER,
});

export function translateMath(text: string): MathTranslation {
  if (text.length > MAX_TEXT) return notMath(`longer than ${MAX_TEXT} characters; the local translator reads short arithmetic questions only`);
  const s = normalise(text);
  if (s === null) return notMath('the local translator reads superscript digits only as an exponent ("3²") and no repeating decimals ("0.333..."); this text has other superscripts, subscripts or an ellipsis after a number');
  const tryClaim = (m: RegExpExecArray | null): MathTranslation | null => {
    if (!m) return null;
    const left = readExpression(m[1]);
    const answer = readAnswer(m[2]);
    if (!left || answer === null) return null;
    return {
      is_math: true,
      expression: print(left),
      claimed_answer: Number(answer),
      claimed_answer_exact: answer,
      reasoning: `local rules: read "${m[1]}" as an expression and "${m[2]}" as the claimed answer`,
      confidence: LOCAL_CONFIDENCE,
      provider: LOCAL_PROVIDER,
    };
  };
  // "what does 2 plus 2 equal" asks for a value: the trailing verb belongs to the question
  const asks = /^(?:what|how much) (?:does|do) /.test(s);
  const body = s.replace(PREAMBLE, '').replace(asks ? /\s+(?:equal|make|come to|give)$/ : /$^/, '');
  const claim = tryClaim(QUESTION_CLAIM.exec(s)) ?? tryClaim(STATEMENT_CLAIM.exec(body));
  if (claim) return claim;
  const whole = readExpression(body);
  if (whole) {
    return {
      is_math: true,
      expression: print(whole),
      claimed_answer: null,
      claimed_answer_exact: null,
      reasoning: `local rules: read "${body}" as an expression; the text states no answer`,
      confidence: LOCAL_CONFIDENCE,
      provider: LOCAL_PROVIDER,
    };
  }
  return notMath('the local translator found no arithmetic it can read in this text');
}

export const localProvider: Provider = {
  name: LOCAL_PROVIDER,
  async translate<T extends TranslationTarget>(target: T, text: string): Promise<TranslationOf[T]> {
    if (target === 'math') return translateMath(text) as TranslationOf[T];
    if (target === 'logic_dsl') {
      try {
        const out: LogicTranslation = { expression: translateLogic(text), provider: LOCAL_PROVIDER };
        return out as TranslationOf[T];
      } catch (err) {
        if (!(err instanceof LogicReadError)) throw err;
        throw new ProviderError('cannot_translate', `${err.message} (docs/engines/logic.md lists what the local translator reads)`, LOCAL_PROVIDER);
      }
    }
    throw new ProviderError('cannot_translate', `the local translator reads arithmetic and simple comparisons only; configure a language-model provider for ${target}`, LOCAL_PROVIDER);
  },
};
