import type { RelOp } from './commands.js';

/**
 * What the LaTeX reader builds: the expression grammar of the engine plus the shapes of a final
 * answer (lists, sets, intervals, tuples, relations, a trailing unit). print.ts turns the
 * expression part into the plain syntax the exact engine reads; answer/ reads the rest.
 */
export type LNode =
  | { k: 'num'; v: string }
  | { k: 'sym'; v: string }
  | { k: 'inf' }
  | { k: 'op'; op: '+' | '-' | '*' | '/' | '^'; a: LNode; b: LNode; implicit?: boolean }
  | { k: 'neg'; a: LNode }
  | { k: 'fn'; name: string; args: LNode[] }
  | { k: 'pct'; a: LNode }
  | { k: 'deg'; a: LNode }
  | { k: 'fact'; a: LNode }
  /** `a \pm b`; `lead` when written without a left operand (`\pm 2`, an answer's {2, −2}; `a` is then 0) */
  | { k: 'pm'; a: LNode; b: LNode; minus: boolean; lead?: true }
  | { k: 'text'; v: string }
  /** bracketed items: `(a)` grouping when one item in round brackets, else a tuple, interval or set */
  | { k: 'delim'; open: '(' | '[' | '{'; close: ')' | ']' | '}'; items: LNode[] }
  /** `or`: at least one item was joined by `or` rather than a comma */
  | { k: 'list'; items: LNode[]; or?: true }
  | { k: 'rel'; ops: RelOp[]; items: LNode[] }
  | { k: 'in'; a: LNode; b: LNode }
  | { k: 'union'; items: LNode[] }
  /** `\begin{pmatrix} a & b \\ c & d \end{pmatrix}`: rows of entries (a vector is one column) */
  | { k: 'matrix'; rows: LNode[][] };
