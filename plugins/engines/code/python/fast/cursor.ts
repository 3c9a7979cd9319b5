import { K, type Tokens, unsupported } from './lexer.js';
import { type N, leaf } from './tree.js';

/** Python 3's reserved words: never an identifier */
export const KEYWORDS = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else',
  'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or',
  'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]);
/** CPython refuses deeper nesting long before; the fast path stays far from the stack limit */
const MAX_NESTING = 100;

/** The token cursor the fast parser's recursive descent reads with. */
export class Cursor {
  p = 0;
  nesting = 0;
  constructor(
    readonly code: string,
    protected t: Tokens,
  ) {}

  protected kind(): K {
    return this.t.kind[this.p];
  }
  protected is(v: string): boolean {
    const k = this.t.kind[this.p];
    return (k === K.OP || k === K.NAME) && this.t.val[this.p] === v;
  }
  protected isAt(off: number, v: string): boolean {
    const k = this.t.kind[this.p + off];
    return (k === K.OP || k === K.NAME) && this.t.val[this.p + off] === v;
  }
  protected startOf(): number {
    return this.t.start[this.p];
  }
  /** consumes `v` and returns its start */
  protected expect(v: string): number {
    if (!this.is(v)) unsupported(`expected ${v}`);
    return this.t.start[this.p++];
  }
  /** consumes `v` and returns its end */
  protected expectEnd(v: string): number {
    if (!this.is(v)) unsupported(`expected ${v}`);
    return this.t.end[this.p++];
  }
  /** the end of the token just consumed */
  protected prevEnd(): number {
    return this.t.end[this.p - 1];
  }
  protected name(): N {
    const v = this.t.val[this.p];
    if (this.kind() !== K.NAME || KEYWORDS.has(v) || v === 'async' || v === 'await') unsupported('expected a name');
    const at = this.p++;
    return leaf('identifier', this.t.start[at], this.t.end[at]);
  }
  protected deeper(): void {
    if (++this.nesting > MAX_NESTING) unsupported('nesting');
  }

  /** where an optional expression list is absent */
  protected endsExpressions(): boolean {
    const k = this.kind();
    return k === K.NEWLINE || k === K.EOF || this.is(')') || this.is(']') || this.is('}') || this.is(';') || this.is('=') || this.is(':');
  }
}
