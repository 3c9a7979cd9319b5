import { C, MathRefusal } from '../errors.js';
import { parseFail, type Tok } from './lexer.js';

/** nesting bound of the reader's own recursion (the engine bounds its tree again after) */
const MAX_NEST = 64;

/** A position in the token list, with the look-ahead and the nesting bound the grammar uses. */
export class Cursor {
  protected i = 0;
  private nest = 0;
  constructor(protected readonly toks: Tok[]) {}

  protected peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  protected is(t: Tok['t'], v?: string, o = 0): boolean {
    const k = this.toks[this.i + o];
    return k !== undefined && k.t === t && (v === undefined || k.v === v);
  }
  protected eat(t: Tok['t'], v: string): boolean {
    if (!this.is(t, v)) return false;
    this.i++;
    return true;
  }
  protected expect(t: Tok['t'], v: string, what: string): void {
    if (!this.eat(t, v)) throw parseFail(`Expected ${what}${this.peek() ? ` before ${this.describe(this.peek()!)}` : ' at the end'}.`);
  }
  protected describe(t: Tok): string {
    return t.t === 'cmd' ? `'\\${t.v.slice(0, 30)}'` : `'${t.v.slice(0, 30)}'`;
  }
  protected deeper<T>(f: () => T): T {
    if (++this.nest > MAX_NEST) throw new MathRefusal(C.depthExceeded, `Expression nesting exceeds ${MAX_NEST} levels.`, { max_depth: MAX_NEST });
    try {
      return f();
    } finally {
      this.nest--;
    }
  }

  /** the name in `\begin{name}` (the `\begin` already taken) or `\end{name}` */
  protected envName(which: 'begin' | 'end'): string {
    if (which === 'end') this.expect('cmd', 'end', "'\\end'");
    this.expect('ch', '{', "'{'");
    const t = this.peek();
    if (!t || t.t !== 'word') throw parseFail(`Expected an environment name after '\\${which}'.`);
    this.i++;
    this.expect('ch', '}', "'}'");
    return t.v;
  }

  /** `or` between answers (`x = 2 or x = 3`, also `\text{ or }`): its token count, else 0 */
  protected orAt(): number {
    if (this.is('word', 'or')) return 1;
    const text = this.peek();
    return text?.t === 'cmd' && ['text', 'mbox', 'textrm'].includes(text.v) && this.is('ch', '{', 1) && this.is('word', 'or', 2) && this.is('ch', '}', 3) ? 4 : 0;
  }
  protected eatOr(): boolean {
    const n = this.orAt();
    this.i += n;
    return n > 0;
  }
}
