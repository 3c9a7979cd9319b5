import { C, MathRefusal } from '../errors.js';
import { lexLatex, parseFail, type DecimalSeparator, type Tok } from './lexer.js';
import { Cursor } from './cursor.js';
import { BINOMIALS, FRACTIONS, FUNCTIONS, GREEK, INVERSE, PAIRS, PLAIN_FUNCTIONS, RELATIONS, TEXT, TIMES, WRAPPERS, type RelOp } from './commands.js';
import type { LNode } from './tree.js';
import { MATRICES, rootOf } from './roots.js';

const num = (v: string): LNode => ({ k: 'num', v });
const sym = (v: string): LNode => ({ k: 'sym', v });
const isDigits = (v: string) => /^\d+$/.test(v);

/**
 * A recursive-descent reader of LaTeX math as language models write it. Precedence is the usual
 * one: relations < `\cup` < sums (`+ - \pm`) < products (`\cdot \times \div /`, juxtaposition)
 * < unary sign < powers < postfix (`!`, `\%`, `^\circ`). Every choice it makes is a rule written in
 * docs/engines/math.md ("LaTeX"); input outside them is refused with the reason, never guessed.
 */
export class Reader extends Cursor {
  /** inside `| … |` a bar always closes: `|x|` never opens a second one */
  private bars = 0;

  static read(text: string, dec: DecimalSeparator): LNode {
    const r = new Reader(lexLatex(text, dec));
    if (r.toks.length === 0) throw parseFail('Expression is empty.');
    const node = r.top();
    if (r.i < r.toks.length) throw parseFail(`Unexpected ${r.describe(r.toks[r.i])}.`);
    return node;
  }

  /** items separated by commas at the top level: a list (an answer's `1, 2`) */
  private top(): LNode {
    const items = [this.relation()];
    let or = false;
    while (this.eat('ch', ',') || this.eat('ch', ';') || (this.eatOr() && (or = true))) items.push(this.relation());
    return items.length === 1 ? items[0] : { k: 'list', items, ...(or ? { or } : {}) };
  }

  private relOp(): RelOp | 'in' | null {
    const t = this.peek();
    if (!t) return null;
    if (t.t === 'cmd' && t.v === 'in') return 'in';
    if ((t.t === 'ch' || t.t === 'cmd') && RELATIONS[t.v] && (t.t === 'cmd' || !/[a-z]/.test(t.v))) return RELATIONS[t.v];
    return null;
  }

  private relation(): LNode {
    const first = this.union();
    const ops: RelOp[] = [];
    const items = [first];
    for (let op = this.relOp(); op !== null; op = this.relOp()) {
      this.i++;
      // `<=` written as two characters
      if ((op === '<' || op === '>') && this.eat('ch', '=')) op = op === '<' ? '<=' : '>=';
      if (op === 'in') {
        if (ops.length) throw parseFail("'\\in' cannot follow another relation.");
        return { k: 'in', a: first, b: this.union() };
      }
      ops.push(op);
      items.push(this.union());
    }
    return ops.length ? { k: 'rel', ops, items } : first;
  }

  private union(): LNode {
    const items = [this.sum()];
    while (this.eat('cmd', 'cup')) items.push(this.sum());
    return items.length === 1 ? items[0] : { k: 'union', items };
  }

  private sum(): LNode {
    return this.deeper(() => {
      let a = this.signed();
      for (;;) {
        if (this.eat('ch', '+')) a = { k: 'op', op: '+', a, b: this.term() };
        else if (this.eat('ch', '-')) a = { k: 'op', op: '-', a, b: this.term() };
        else if (this.eat('cmd', 'pm')) a = { k: 'pm', a, b: this.term(), minus: false };
        else if (this.eat('cmd', 'mp')) a = { k: 'pm', a, b: this.term(), minus: true };
        else return a;
      }
    });
  }

  /** a leading sign applies to the whole first product: `-2x` is -(2x), `-x^2` is -(x^2) */
  private signed(): LNode {
    if (this.eat('ch', '-')) return { k: 'neg', a: this.deeper(() => this.signed()) };
    if (this.eat('ch', '+')) return this.deeper(() => this.signed());
    if (this.eat('cmd', 'pm')) return { k: 'pm', a: num('0'), b: this.term(), minus: false, lead: true };
    return this.term();
  }

  private startsFactor(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.t === 'num' || t.t === 'word') return this.orAt() === 0;
    if (t.t === 'ch') return t.v === '(' || t.v === '{' || t.v === '[' || (t.v === '|' && this.bars === 0) || /^[\u0391-\u03C9π]$/u.test(t.v);
    return t.v === '{' || t.v === 'pi' || t.v in GREEK || t.v in FUNCTIONS || t.v in PAIRS || FRACTIONS.has(t.v) || BINOMIALS.has(t.v) ||
      (TEXT.has(t.v) && this.orAt() === 0) || WRAPPERS.has(t.v) || ['sqrt', 'log', 'infty', 'emptyset', 'varnothing'].includes(t.v);
  }

  private term(): LNode {
    let a = this.factor();
    let afterSlash = false;
    for (;;) {
      if (this.is('ch', '*') || (this.is('cmd') && TIMES.has(this.peek()!.v))) {
        this.i++;
        a = { k: 'op', op: '*', a, b: this.factor() };
        afterSlash = false;
      } else if (this.eat('ch', '/') || this.eat('cmd', 'div')) {
        a = { k: 'op', op: '/', a, b: this.factor() };
        afterSlash = true;
      } else if (this.startsFactor()) {
        if (this.is('num')) throw parseFail(`A number directly after a factor ('${this.peek()!.v}') is not read as a product: write '\\cdot'.`);
        if (afterSlash) {
          throw new MathRefusal(C.ambiguous, "Implicit multiplication directly after a division is ambiguous: write '\\frac{…}{…}' or the multiplication explicitly.", {
            is_valid: false, result: false, warning: 'ambiguous', interpretations: ['(a / b) * c', 'a / (b * c)'],
          });
        }
        const mixed = this.mixedNumber(a);
        a = mixed ?? { k: 'op', op: '*', a, b: this.factor(), implicit: true };
      } else return a;
    }
  }

  /** `2\frac{1}{2}` is the mixed number 2½ when an integer is followed by a proper fraction of integers */
  private mixedNumber(a: LNode): LNode | null {
    if (a.k !== 'num' || !isDigits(a.v) || !this.is('cmd') || !FRACTIONS.has(this.peek()!.v)) return null;
    const save = this.i;
    const f = this.factor();
    if (f.k === 'op' && f.op === '/' && f.a.k === 'num' && f.b.k === 'num' && isDigits(f.a.v) && isDigits(f.b.v) && BigInt(f.a.v) < BigInt(f.b.v) && BigInt(f.a.v) > 0n) {
      return { k: 'delim', open: '(', close: ')', items: [{ k: 'op', op: '+', a, b: f }] };
    }
    this.i = save;
    return null;
  }

  private factor(): LNode {
    return this.deeper(() => {
      if (this.is('ch', '-')) {
        this.i++;
        return { k: 'neg', a: this.factor() };
      }
      let base = this.postfix(this.primary());
      if (this.eat('ch', '^')) {
        if (this.is('cmd', 'circ') || (this.is('ch', '{') && this.is('cmd', 'circ', 1) && this.is('ch', '}', 2))) {
          this.i += this.is('cmd', 'circ') ? 1 : 3;
          return this.postfix({ k: 'deg', a: base });
        }
        base = { k: 'op', op: '^', a: base, b: this.script('exponent') };
        if (this.is('ch', '^')) throw parseFail("A double exponent ('a^b^c') must be braced: write 'a^{b^{c}}'.");
        base = this.postfix(base);
      }
      return base;
    });
  }

  private postfix(a: LNode): LNode {
    for (;;) {
      if (this.eat('ch', '!')) a = { k: 'fact', a };
      else if (this.eat('cmd', '%') || this.eat('ch', '%')) a = { k: 'pct', a };
      else if (this.eat('ch', '°')) a = { k: 'deg', a };
      else return a;
    }
  }

  /**
   * The argument of `^`, `_`, `\frac`, `\sqrt`: a braced group, or as in TeX one token — one digit
   * or letter; `2^10` is TeX's 2¹0, so a number directly after it is refused rather than read.
   */
  private script(what: string): LNode {
    const t = this.peek();
    if (!t) throw parseFail(`Missing ${what} at the end.`);
    if (t.t === 'ch' && t.v === '{') {
      this.i++;
      const inner = this.top();
      this.expect('ch', '}', "'}'");
      return inner;
    }
    if (t.t === 'num' || t.t === 'word') {
      // TeX takes one character: the rest stays for what follows
      const rest = t.v.slice(1);
      if (rest) this.toks.splice(this.i + 1, 0, { ...t, v: rest } as Tok);
      this.i++;
      return t.t === 'num' ? num(t.v[0]) : sym(t.v[0]);
    }
    if (t.t === 'cmd' && (t.v === 'pi' || t.v in GREEK || t.v === 'infty')) return this.primary();
    if (t.t === 'ch' && t.v === '-' && what === 'exponent') throw parseFail("A negative exponent must be braced: write 'a^{-1}'.");
    throw parseFail(`Unexpected ${this.describe(t)} as ${what}: write it in braces.`);
  }

  /** `x_1`, `a_{n}`, `x_{12}`: an indexed name; any other subscript is refused */
  private subscripted(name: string): LNode {
    if (!this.eat('ch', '_')) return sym(name);
    const s = this.script('subscript');
    if (s.k === 'num' && isDigits(s.v)) return { k: 'sym', v: `${name}_${s.v}` };
    if (s.k === 'sym' && /^[A-Za-z]$/.test(s.v)) return { k: 'sym', v: `${name}_${s.v}` };
    throw parseFail('Only a digit run or one letter can index a name (x_1, a_{n}).');
  }

  private braced(): LNode {
    this.expect('ch', '{', "'{'");
    const inner = this.top();
    this.expect('ch', '}', "'}'");
    return inner;
  }

  /** the raw text of a braced argument of `\text{…}` (re-joined tokens; spacing is not significant) */
  private rawText(): string {
    this.expect('ch', '{', "'{'");
    const parts: string[] = [];
    let depth = 1;
    for (;;) {
      const t = this.toks[this.i++];
      if (!t) throw parseFail("Missing '}' after \\text.");
      if (t.t === 'ch' && t.v === '{') depth++;
      if (t.t === 'ch' && t.v === '}' && --depth === 0) break;
      parts.push(t.t === 'cmd' ? `\\${t.v}` : t.v);
    }
    return parts.join(' ').trim();
  }

  private primary(): LNode {
    const t = this.peek();
    if (!t) throw parseFail('The expression ends where a value is expected.');
    if (t.t === 'num') {
      this.i++;
      return num(t.v);
    }
    if (t.t === 'word') return this.word(t.v);
    if (t.t === 'ch') return this.character(t.v);
    return this.command(t.v);
  }

  /** a run of letters: a known plain name (`pi`, `sqrt(…)`) or a product of single-letter variables */
  private word(w: string): LNode {
    if (w === 'or' || w === 'and') throw parseFail(`'${w}' between values is read only as 'x = 2 or x = 3', a list; write a list 'a, b' or one value.`);
    this.i++;
    if (w === 'pi') return { k: 'sym', v: 'pi' };
    if (PLAIN_FUNCTIONS[w] && this.is('ch', '(')) return this.call(PLAIN_FUNCTIONS[w]);
    if (w.length > 8 || PLAIN_FUNCTIONS[w]) throw parseFail(`'${w.slice(0, 30)}' is not read: variables are single letters, functions are written as commands (\\sin) or called with brackets.`);
    const letters = [...w];
    const last = this.subscripted(letters.pop()!);
    return letters.reduceRight<LNode>((acc, l) => ({ k: 'op', op: '*', a: sym(l), b: acc, implicit: true }), last);
  }

  private character(c: string): LNode {
    this.i++;
    if (c === '(' || c === '[') return this.bracketed(c);
    if (c === '{') {
      const inner = this.top();
      this.expect('ch', '}', "'}'");
      return inner;
    }
    if (c === '|') {
      this.bars++;
      const inner = this.sum();
      this.bars--;
      this.expect('ch', '|', "a closing '|'");
      return { k: 'fn', name: 'abs', args: [inner] };
    }
    if (c === 'π') return { k: 'sym', v: 'pi' };
    if (/^[\u0391-\u03A9\u03B1-\u03C9]$/u.test(c)) return this.subscripted(c);
    this.i--;
    throw parseFail(`Unexpected ${this.describe(this.peek()!)}.`);
  }

  /** `( … )` or `[ … ]` closed by either bracket: a group, a tuple or an interval, decided by the caller */
  private bracketed(open: '(' | '['): LNode {
    const items = [this.relation()];
    while (this.eat('ch', ',') || this.eat('ch', ';')) items.push(this.relation());
    const close = this.eat('ch', ')') ? ')' : this.eat('ch', ']') ? ']' : null;
    if (!close) throw parseFail(`Expected ')' or ']'${this.peek() ? ` before ${this.describe(this.peek()!)}` : ' at the end'}.`);
    if (items.length === 1 && (open === '(') === (close === ')')) return open === '(' ? { k: 'delim', open, close, items } : items[0];
    return { k: 'delim', open, close, items };
  }

  private command(c: string): LNode {
    this.i++;
    if (c === 'pi') return { k: 'sym', v: 'pi' };
    if (c in GREEK) return this.subscripted(GREEK[c]);
    if (c === 'infty') return { k: 'inf' };
    if (c === 'emptyset' || c === 'varnothing') return { k: 'delim', open: '{', close: '}', items: [] };
    if (c === '{' || c === 'lbrace') {
      const items: LNode[] = [];
      if (!this.is('cmd', '}') && !this.is('cmd', 'rbrace')) {
        items.push(this.relation());
        while (this.eat('ch', ',') || this.eat('ch', ';')) items.push(this.relation());
      }
      if (!this.eat('cmd', '}') && !this.eat('cmd', 'rbrace')) throw parseFail("Expected '\\}' to close the set.");
      return { k: 'delim', open: '{', close: '}', items };
    }
    if (FRACTIONS.has(c)) {
      const a = this.script('numerator');
      return { k: 'op', op: '/', a, b: this.script('denominator') };
    }
    if (BINOMIALS.has(c)) {
      const a = this.script('argument');
      return { k: 'fn', name: 'binomial', args: [a, this.script('argument')] };
    }
    if (c === 'sqrt') return this.root();
    if (c === 'begin') return this.environment();
    if (WRAPPERS.has(c)) return this.braced();
    if (TEXT.has(c)) return this.text(c);
    const pair = PAIRS[c];
    if (pair) {
      const inner = this.sum();
      this.expect('cmd', pair.close, `'\\${pair.close}'`);
      return { k: 'fn', name: pair.fn, args: [inner] };
    }
    if (c in FUNCTIONS || c === 'log') return this.apply(c);
    this.i--;
    throw new MathRefusal(C.disallowed, `Disallowed construct in expression: LaTeX command '\\${c.slice(0, 30)}'.`, { construct: `\\${c.slice(0, 30)}` });
  }

  /** `name(a, b)`: the bracket's items are the arguments */
  private call(name: string): LNode {
    const b = this.character('(');
    return { k: 'fn', name, args: b.k === 'delim' && b.open === '(' && b.close === ')' ? b.items : [b] };
  }

  private text(c: string): LNode {
    const raw = this.rawText();
    // `\mathrm{e}`, `\mathrm{b}`, `\operatorname{sin}`: a name in upright type, not words
    if (/^[A-Za-z]$/.test(raw) && c !== 'text' && c !== 'mbox') return this.subscripted(raw);
    if (raw in FUNCTIONS || raw === 'log') return this.apply(raw);
    // `\mathrm{binomial}\left(5,2\right)`: a plain function name called with brackets
    if (PLAIN_FUNCTIONS[raw] && this.is('ch', '(')) return this.call(PLAIN_FUNCTIONS[raw]);
    if (c === 'operatorname') throw new MathRefusal(C.disallowed, `Disallowed construct in expression: unknown function '${raw.slice(0, 30)}'.`, { construct: raw.slice(0, 30) });
    return { k: 'text', v: raw };
  }

  /** `\sqrt{x}`, `\sqrt[n]{x}`: the index an integer of at least 2 (roots.ts says what each reads as) */
  private root(): LNode {
    if (!this.eat('ch', '[')) return rootOf('2', this.script('radicand'));
    const n = this.peek();
    if (!n || n.t !== 'num' || !isDigits(n.v) || BigInt(n.v) < 2n || !this.is('ch', ']', 1)) throw parseFail('The index of \\sqrt[n]{…} must be an integer of at least 2.');
    this.i += 2;
    return rootOf(n.v, this.script('radicand'));
  }

  /** `\begin{pmatrix} … \end{pmatrix}` (also bmatrix, matrix): entries split by `&`, rows by `\\` */
  private environment(): LNode {
    const name = this.envName('begin');
    if (!MATRICES.has(name)) throw new MathRefusal(C.disallowed, `Disallowed construct in expression: environment '${name.slice(0, 30)}'.`, { construct: name.slice(0, 30) });
    const rows: LNode[][] = [];
    for (;;) {
      const row = [this.relation()];
      while (this.eat('ch', '&')) row.push(this.relation());
      rows.push(row);
      // a trailing `\\` before `\end` closes the last row
      if (!this.eat('cmd', '\\') || this.is('cmd', 'end')) break;
    }
    if (this.envName('end') !== name) throw parseFail(`Expected '\\end{${name}}'.`);
    if (rows.some((r) => r.length !== rows[0].length)) throw parseFail('The rows of a matrix must have the same number of entries.');
    return { k: 'matrix', rows };
  }

  /**
   * A function: `\sin(x)`, `\sin{x}`, or without brackets `\sin 2x` — then the argument is the
   * product of the numbers, letters, powers and fractions that follow, up to the next operator,
   * relation, bracket or function (`\sin x \cos x` is sin(x)·cos(x)). `\sin^2 x` is (sin x)²,
   * `\sin^{-1} x` is arcsin x, `\log_b x` is ln x / ln b, `\log_{10}` log10; `\log` without a base is
   * refused (natural or decimal is a convention the text does not state).
   */
  private apply(c: string): LNode {
    let base: LNode | null = null;
    if (c === 'log') {
      if (!this.eat('ch', '_')) throw parseFail("'\\log' without a base is ambiguous (natural or base 10): write \\ln, \\log_{10} or \\log_{b}.");
      base = this.script('base of the logarithm');
    }
    let name = c === 'log' ? 'ln' : FUNCTIONS[c];
    let power: LNode | null = null;
    if (this.eat('ch', '^')) {
      const p = this.script('exponent');
      if (p.k === 'neg' && p.a.k === 'num' && p.a.v === '1' && INVERSE[c]) name = INVERSE[c];
      else power = p;
    }
    const arg = this.argument();
    let out: LNode = { k: 'fn', name, args: [arg] };
    if (base) out = base.k === 'num' && base.v === '10' ? { k: 'fn', name: 'log10', args: [arg] } : { k: 'op', op: '/', a: out, b: { k: 'fn', name: 'ln', args: [base] } };
    return power ? { k: 'op', op: '^', a: out, b: power } : out;
  }

  private argument(): LNode {
    if (this.is('ch', '(') || this.is('ch', '{') || this.is('ch', '[')) return this.postfix(this.primary());
    const t = this.peek();
    const simple = () => {
      const k = this.peek();
      if (!k) return false;
      if (k.t === 'num' || k.t === 'word') return true;
      return k.t === 'cmd' && (k.v === 'pi' || k.v in GREEK || FRACTIONS.has(k.v) || k.v === 'sqrt');
    };
    if (!t || !simple()) throw parseFail(`A function needs an argument${t ? ` before ${this.describe(t)}` : ' at the end'}.`);
    let a = this.factor();
    while (simple() && !this.is('num')) a = { k: 'op', op: '*', a, b: this.factor(), implicit: true };
    return a;
  }
}
