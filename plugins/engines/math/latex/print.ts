import { C, MathRefusal } from '../errors.js';
import type { LNode } from './tree.js';

function notAnExpression(what: string): MathRefusal {
  return new MathRefusal(C.disallowed, `Disallowed construct in expression: ${what}. Sets, intervals, tuples, lists and units are final answers: compare them with \`expected\`.`, { construct: what });
}

const PREC: Record<string, number> = { '+': 1, '-': 1, '*': 2, '/': 2, neg: 3, '^': 4 };

function prec(n: LNode): number {
  if (n.k === 'op') return PREC[n.op];
  if (n.k === 'neg') return PREC.neg;
  if (n.k === 'delim' && n.items.length === 1) return prec(n.items[0]);
  // `3!` is wrapped as a base (`(3!)^2`), never read as 3!^2
  return n.k === 'fact' ? 8 : 9;
}

/**
 * The plain syntax of an expression node, bracketed wherever precedence needs it and with every
 * product explicit, so the plain reader can take no other reading (`\frac{1}{2}x` is 1/2*x, never
 * 1/(2x)); answer shapes are refused here.
 */
export function toPlain(n: LNode): string {
  const wrap = (x: LNode, min: number) => (prec(x) < min ? `(${toPlain(x)})` : toPlain(x));
  switch (n.k) {
    case 'num':
    case 'sym':
      return n.v;
    case 'inf':
      return fail('\\infty outside an interval');
    case 'op': {
      const p = PREC[n.op];
      if (n.op === '^') return `${wrap(n.a, 9)}^${wrap(n.b, 9)}`;
      // the right operand of - and / binds tighter than the operator (a - (b - c))
      const right = n.op === '-' || n.op === '/' ? p + 1 : p;
      return `${wrap(n.a, p)}${n.op === '+' || n.op === '-' ? ` ${n.op} ` : n.op}${wrap(n.b, right)}`;
    }
    case 'neg':
      return `-${wrap(n.a, PREC['^'])}`;
    case 'fn':
      return `${n.name}(${n.args.map(toPlain).join(', ')})`;
    case 'pct':
      return `(${wrap(n.a, PREC['/'] + 1)}/100)`;
    case 'deg':
      return `(${wrap(n.a, PREC['*'])}*pi/180)`;
    case 'fact':
      return `${wrap(n.a, 9)}!`;
    case 'delim':
      if (n.open === '(' && n.close === ')' && n.items.length === 1) return toPlain(n.items[0]);
      return fail(n.open === '{' ? 'a set' : n.items.length === 2 ? 'an interval or tuple' : 'a tuple');
    case 'pm':
      return fail("'\\pm'");
    case 'text':
      return fail(`text '${n.v.slice(0, 40)}'`);
    case 'list':
      return fail('a comma-separated list');
    case 'rel':
      return fail('a relation inside an expression');
    case 'in':
      return fail("'\\in'");
    case 'union':
      return fail("'\\cup'");
    case 'matrix':
      return fail('a matrix or vector');
  }
}

function fail(what: string): never {
  throw notAnExpression(what);
}

/** whether the node holds no variable (π, e and i are constants) */
export function constantNode(n: LNode): boolean {
  switch (n.k) {
    case 'num':
    case 'inf':
    case 'text':
      return true;
    case 'sym':
      return n.v === 'pi' || n.v === 'e' || n.v === 'i';
    case 'op':
    case 'pm':
      return constantNode(n.a) && constantNode(n.b);
    case 'neg':
    case 'pct':
    case 'deg':
    case 'fact':
      return constantNode(n.a);
    case 'in':
      return constantNode(n.a) && constantNode(n.b);
    case 'fn':
      return n.args.every(constantNode);
    case 'matrix':
      return n.rows.every((r) => r.every(constantNode));
    default:
      return n.items.every(constantNode);
  }
}
