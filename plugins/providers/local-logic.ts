/**
 * The local translator's logic grammar: simple comparisons in English read by fixed rules into the
 * logic engine's prefix DSL, so `/verify/logic` answers plain sentences with no network. The rules
 * are deliberately small and refuse anything outside them (nothing is guessed); the result is as
 * untrusted as a model's translation and goes through the same DSL parser and solver.
 *
 *   sentence   := [preamble] disjunct ("or" disjunct)*
 *   disjunct   := clause (("and" | "but" | ",") (clause | relation))*   — a bare relation reuses the last subject
 *   clause     := term relation
 *   relation   := comparator term | "is between" term "and" term          (between is inclusive)
 *   term       := product (("plus" | "+" | "minus" | "-") product)*
 *   product    := atom (("times" | "*" | "multiplied by" | "divided by" | "/") atom)*
 *   atom       := number | "negative" number | name | "(" term ")"
 * Comparators: see COMPARATORS. Names are single words of letters, digits and underscore that are
 * not grammar words. Every name is an Int unless a decimal or a division appears, then all are Real.
 */

export class LogicReadError extends Error {}

type Tok = { t: 'num'; v: string } | { t: 'name'; v: string } | { t: 'word'; v: string } | { t: 'sym'; v: string };
type Term = { k: 'num'; v: string } | { k: 'var'; v: string } | { k: 'op'; op: 'PLUS' | 'MINUS' | 'MULT' | 'DIV'; a: Term; b: Term };

const MAX_TEXT = 2000;
const MAX_TOKENS = 400;

/** comparator phrases, longest first so "greater than or equal to" wins over "greater than" */
const COMPARATORS: ReadonlyArray<readonly [string, string]> = [
  ['is greater than or equal to', 'GTE'],
  ['greater than or equal to', 'GTE'],
  ['is less than or equal to', 'LTE'],
  ['less than or equal to', 'LTE'],
  ['is not equal to', 'NEQ'],
  ['does not equal', 'NEQ'],
  ['is not', 'NEQ'],
  ['is no less than', 'GTE'],
  ['is no more than', 'LTE'],
  ['is at least', 'GTE'],
  ['at least', 'GTE'],
  ['is at most', 'LTE'],
  ['at most', 'LTE'],
  ['is greater than', 'GT'],
  ['greater than', 'GT'],
  ['is more than', 'GT'],
  ['more than', 'GT'],
  ['is larger than', 'GT'],
  ['larger than', 'GT'],
  ['is bigger than', 'GT'],
  ['exceeds', 'GT'],
  ['is less than', 'LT'],
  ['less than', 'LT'],
  ['is smaller than', 'LT'],
  ['smaller than', 'LT'],
  ['is equal to', 'EQ'],
  ['equal to', 'EQ'],
  ['equals', 'EQ'],
  ['is', 'EQ'],
  ['>=', 'GTE'],
  ['<=', 'LTE'],
  ['!=', 'NEQ'],
  ['==', 'EQ'],
  ['=', 'EQ'],
  ['>', 'GT'],
  ['<', 'LT'],
];

const GRAMMAR_WORDS = new Set([
  'is', 'not', 'no', 'equal', 'equals', 'to', 'than', 'greater', 'less', 'more', 'larger', 'bigger', 'smaller', 'exceeds',
  'at', 'least', 'most', 'or', 'and', 'but', 'between', 'plus', 'minus', 'times', 'multiplied', 'divided', 'by', 'negative',
  'does', 'true', 'false',
]);

/** leading phrases that ask the question without adding a constraint */
const PREAMBLE = /^(?:(?:is it possible that|can it be that|could it be that|check whether|check that|check if|suppose that|suppose|assume that|assume|given that|where|such that|can|could)\s+)+/i;

/** English number words: never names ("x is greater than twenty" is not x > twenty, a free variable) */
const NUMBER_WORDS = new Set([
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen',
  'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty',
  'ninety', 'hundred', 'thousand', 'million', 'billion', 'trillion', 'dozen', 'half', 'quarter', 'twice', 'double', 'triple',
  'pi', 'infinity',
]);

/**
 * Words that describe a number: never names either. "x is positive" is not x = positive (a free
 * variable, SAT with x < 0 too); the grammar has no such properties, so the sentence is refused.
 */
const PROPERTY_WORDS = new Set([
  'positive', 'nonnegative', 'nonpositive', 'nonzero', 'even', 'odd', 'prime', 'composite', 'integer', 'integral', 'real',
  'rational', 'irrational', 'natural', 'whole', 'finite', 'infinite', 'undefined', 'unknown', 'divisible',
]);

/** a < b for two decimal literals ("-3", "0.5", "1000"), exactly */
export function decimalBelow(a: string, b: string): boolean {
  const digits = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  const scaled = (s: string) => {
    const [int, frac = ''] = s.replace('-', '').split('.');
    const v = BigInt(int + frac.padEnd(digits, '0'));
    return s.startsWith('-') ? -v : v;
  };
  return scaled(a) < scaled(b);
}

function normalise(text: string): string {
  // NFKC makes "x²" the name x2 and "10⁻³" the difference 10-3; this grammar has no powers
  if (/[\u00B2\u00B3\u00B9\u2070-\u209F]/.test(text)) throw new LogicReadError('the local translator does not read superscripts or subscripts');
  const folded = text.normalize('NFKC');
  // "0.333..." repeats; dropping the trailing dots would make it 0.333
  if (/\d\s*\.{2,}/.test(folded)) throw new LogicReadError('the local translator does not read repeating decimals ("0.333..."); write a fraction such as 1/3');
  return folded
    .replace(/≥/g, ' >= ')
    .replace(/≤/g, ' <= ')
    .replace(/≠/g, ' != ')
    .replace(/[−–]/g, '-')
    .replace(/[?!.]+\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(>=|<=|!=|==|[-+*/()=<>,;]))/y;
  let i = 0;
  while (i < text.length) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) {
      if (/^\s*$/.test(text.slice(i))) break;
      throw new LogicReadError(`the local translator cannot read "${text.slice(i, i + 16)}"`);
    }
    i = re.lastIndex;
    if (m[1] !== undefined) out.push({ t: 'num', v: m[1] });
    else if (m[2] !== undefined) {
      const lower = m[2].toLowerCase();
      if (NUMBER_WORDS.has(lower)) throw new LogicReadError(`the local translator reads numbers in digits, not "${m[2]}"`);
      if (PROPERTY_WORDS.has(lower)) throw new LogicReadError(`"${m[2]}" is a property the local translator does not read; write a comparison such as "x is greater than 0"`);
      out.push(GRAMMAR_WORDS.has(lower) ? { t: 'word', v: lower } : { t: 'name', v: m[2] });
    } else out.push({ t: 'sym', v: m[3] === ';' ? ',' : m[3] });
    if (out.length > MAX_TOKENS) throw new LogicReadError(`more than ${MAX_TOKENS} words; the local translator reads short sentences`);
  }
  return out;
}

const text = (t: Tok | undefined): string | undefined => (t ? t.v : undefined);

class Reader {
  i = 0;
  real = false;
  /** every name the sentence uses (declared Real together when `real` is set) */
  readonly names = new Set<string>();
  constructor(private readonly toks: Tok[]) {}

  private at(k: number): string | undefined {
    return text(this.toks[this.i + k]);
  }
  private accept(...words: string[]): boolean {
    for (let k = 0; k < words.length; k++) if (this.at(k) !== words[k]) return false;
    this.i += words.length;
    return true;
  }
  private expect(...words: string[]): void {
    if (!this.accept(...words)) throw new LogicReadError(`expected "${words.join(' ')}"`);
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }

  sentence(): string {
    const parts = [this.disjunct()];
    while (this.accept('or')) parts.push(this.disjunct());
    if (!this.done()) throw new LogicReadError(`the local translator cannot read the sentence from "${this.at(0)}" on`);
    return parts.length === 1 ? parts[0] : `(OR ${parts.join(' ')})`;
  }

  private disjunct(): string {
    let subject = this.term();
    const parts = [this.relation(subject)];
    while (this.accept('and') || this.accept('but') || this.accept(',')) {
      if (!this.accept('and')) this.accept('but');
      // "x is greater than 5 and less than 3": a comparator right after the joiner keeps the subject
      const start = this.i;
      const op = this.comparator();
      this.i = start;
      if (op === null) subject = this.term();
      parts.push(this.relation(subject));
    }
    return parts.length === 1 ? parts[0] : `(AND ${parts.join(' ')})`;
  }

  private relation(subject: Term): string {
    const s = this.print(subject);
    if (this.accept('is', 'between') || this.accept('between')) {
      let lo = this.term();
      this.expect('and');
      let hi = this.term();
      // "between 5 and 1" is the same range as "between 1 and 5": the bounds in either order
      if (lo.k === 'num' && hi.k === 'num') {
        if (decimalBelow(hi.v, lo.v)) [lo, hi] = [hi, lo];
        return `(AND (GTE ${s} ${lo.v}) (LTE ${s} ${hi.v}))`;
      }
      const [a, b] = [this.print(lo), this.print(hi)];
      return `(OR (AND (GTE ${s} ${a}) (LTE ${s} ${b})) (AND (GTE ${s} ${b}) (LTE ${s} ${a})))`;
    }
    const op = this.comparator();
    if (op === null) throw new LogicReadError('expected a comparison such as "is greater than", "is at least" or "equals"');
    return `(${op} ${s} ${this.print(this.term())})`;
  }

  private comparator(): string | null {
    for (const [phrase, op] of COMPARATORS) if (this.accept(...phrase.split(' '))) return op;
    return null;
  }

  private term(): Term {
    let a = this.product();
    for (;;) {
      if (this.accept('plus') || this.accept('+')) a = { k: 'op', op: 'PLUS', a, b: this.product() };
      else if (this.accept('minus') || this.accept('-')) a = { k: 'op', op: 'MINUS', a, b: this.product() };
      else return a;
    }
  }

  private product(): Term {
    let a = this.atom();
    for (;;) {
      if (this.accept('times') || this.accept('multiplied', 'by') || this.accept('*')) a = { k: 'op', op: 'MULT', a, b: this.atom() };
      else if (this.accept('divided', 'by') || this.accept('/')) {
        this.real = true;
        a = { k: 'op', op: 'DIV', a, b: this.atom() };
      } else return a;
    }
  }

  private atom(): Term {
    const t = this.toks[this.i];
    if (!t) throw new LogicReadError('the sentence ends where a number or a name was expected');
    if (t.t === 'sym' && t.v === '(') {
      this.i++;
      const e = this.term();
      this.expect(')');
      return e;
    }
    const negative = this.accept('negative') || (t.t === 'sym' && t.v === '-' && this.accept('-'));
    const n = this.toks[this.i];
    if (n?.t === 'num') {
      this.i++;
      if (n.v.includes('.')) this.real = true;
      return { k: 'num', v: negative ? `-${n.v}` : n.v };
    }
    if (!negative && n?.t === 'name') {
      this.i++;
      return { k: 'var', v: n.v };
    }
    throw new LogicReadError(`expected a number or a name, found "${n?.v ?? 'the end'}"`);
  }

  print(t: Term): string {
    if (t.k === 'num') return t.v;
    if (t.k === 'var') {
      this.names.add(t.v);
      return t.v;
    }
    return `(${t.op} ${this.print(t.a)} ${this.print(t.b)})`;
  }
}

/** The sentence as logic DSL, or a LogicReadError saying where the grammar stopped. */
export function translateLogic(input: string): string {
  if (input.length > MAX_TEXT) throw new LogicReadError(`longer than ${MAX_TEXT} characters; the local translator reads short sentences`);
  const s = normalise(input);
  const pre = PREAMBLE.exec(s);
  const toks = tokenize(pre ? s.slice(pre[0].length) : s);
  if (!toks.length) throw new LogicReadError('the text is empty');
  const r = new Reader(toks);
  const formula = r.sentence();
  if (!r.names.size) throw new LogicReadError('the sentence names no variable to solve for');
  // declarations only when the default sort (Int) is wrong: decimals or division mean real numbers
  const decls = r.real ? [...r.names].sort().map((n) => `(VAR ${n} Real) `).join('') : '';
  return decls + formula;
}
