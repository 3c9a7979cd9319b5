import { normalizeMathInput } from '../normalize.js';
import { C, MathRefusal } from '../errors.js';
import { Reader } from './reader.js';
import { toPlain } from './print.js';
import type { DecimalSeparator } from './lexer.js';
import type { RelOp } from './commands.js';

export type { DecimalSeparator } from './lexer.js';
export type { LNode } from './tree.js';
export { Reader } from './reader.js';
export { toPlain, constantNode } from './print.js';

/**
 * Which reader takes an expression: the LaTeX reader when the text holds a backslash, a brace, a
 * dollar sign or a percent sign (none of which the plain syntax admits), the plain reader otherwise
 * — so every input the plain reader accepted is read exactly as before.
 */
export function isLatex(text: string): boolean {
  return /[\\{}$%]/.test(text);
}

/** `$…$`, `$$…$$`, `\(…\)`, `\[…\]` around the whole text, and a final full stop */
export function stripDelimiters(text: string): string {
  let s = text.trim();
  for (;;) {
    const m = /^\$\$([\s\S]*)\$\$$/.exec(s) ?? /^\$([\s\S]*)\$$/.exec(s) ?? /^\\\(([\s\S]*)\\\)$/.exec(s) ?? /^\\\[([\s\S]*)\\\]$/.exec(s);
    if (!m) break;
    s = m[1].trim();
  }
  return s.replace(/\s*\.$/, '').trim();
}

export interface LatexReading {
  /** the plain-syntax text the engine reads (`a = b` for an equation) */
  plain: string;
  /** an inequality or `\neq` between two sides, each in plain syntax */
  relation?: { op: Exclude<RelOp, '='>; left: string; right: string };
}

/** LaTeX expression or claim → the plain syntax of the exact engine; answer shapes are refused */
export function readLatexExpression(raw: string, dec: DecimalSeparator = '.'): LatexReading {
  const text = stripDelimiters(normalizeMathInput(raw));
  if (text.includes('$')) throw new MathRefusal(C.parseError, "A '$' inside the expression: send one formula, without text around it.", { error: 'parse_error' });
  const node = Reader.read(text, dec);
  if (node.k === 'rel') {
    if (node.ops.length > 1) throw new MathRefusal(C.disallowed, 'Disallowed construct in expression: a chain of relations. Compare an interval with `expected`.', { construct: 'relation chain' });
    const [left, right] = node.items.map(toPlain);
    const op = node.ops[0];
    if (op === '=') return { plain: `${left} = ${right}` };
    return { plain: `${left} ${op} ${right}`, relation: { op, left, right } };
  }
  return { plain: toPlain(node) };
}
