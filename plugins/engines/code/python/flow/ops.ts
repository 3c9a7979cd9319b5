import type { Const } from './value.js';

/** Constant folding of Python's numbers, arithmetic and comparisons (expr.ts). */
export function numberOf(text: string): number | null {
  const t = text.replace(/_/g, '');
  if (/[jJ]$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

export function binop(op: string, a: Const, b: Const): Const | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return b === 0 ? undefined : a / b;
      case '//': return b === 0 ? undefined : Math.floor(a / b);
      case '%': return b === 0 ? undefined : ((a % b) + b) % b;
      case '**': return b >= 0 && b < 64 ? a ** b : undefined;
    }
    return undefined;
  }
  if (typeof a === 'string' && typeof b === 'string' && op === '+') return a.length + b.length < 4096 ? a + b : undefined;
  if (typeof a === 'string' && typeof b === 'number' && op === '*') return b >= 0 && a.length * b < 4096 ? a.repeat(b) : undefined;
  return undefined;
}

export function compare(op: string, a: Const, b: Const): boolean | undefined {
  switch (op) {
    case '==': return a === b;
    case '!=': return a !== b;
    case 'in': return typeof a === 'string' && typeof b === 'string' ? b.includes(a) : undefined;
    case 'not in': return typeof a === 'string' && typeof b === 'string' ? !b.includes(a) : undefined;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    if (op === '<') return a < b;
    if (op === '>') return a > b;
    if (op === '<=') return a <= b;
    if (op === '>=') return a >= b;
  }
  return undefined;
}
