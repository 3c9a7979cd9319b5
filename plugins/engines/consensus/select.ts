import { ArithRefusal, evaluate, parseArith, toDsl } from './rational.js';

export type Mode = 'single' | 'high' | 'maximum';
export const REQUIRED: Record<Mode, number> = { single: 1, high: 2, maximum: 3 };

export interface Candidate {
  /** the `verifier.<engine>` service */
  engine: string;
  method: string;
  input: Record<string, unknown>;
}

export type QueryKind = 'arithmetic' | 'logic_dsl' | 'unsupported';

const ARITH_CHARS = /^[\d\s.+\-*/^()=]+$/;

/** LaTeX as models write it (`\frac{1}{2} = 0.5`), with no sentence around it */
function isLatexMath(q: string): boolean {
  if (!/\\[A-Za-z]/.test(q) || !/\d/.test(q) || (q.match(/=/g) ?? []).length > 1) return false;
  // a sentence around the formula is for a translator: no run of two letters outside commands
  return !/[A-Za-z]{2}/.test(q.replace(/\\[A-Za-z]+/g, ' '));
}

/**
 * Which engines can answer a query, in preference order. Deterministic and conservative: an
 * engine is offered only when the query is in its input language without any guessing. The fact
 * engine is never chosen (spec rule 2), nor anything that would need a language model.
 *  - DSL (`(`…): logic only; no other engine reads the DSL.
 *  - LaTeX math (a command such as `\frac`, a digit, at most one =, no two letters in a row outside
 *    commands): math only, the one engine that reads LaTeX.
 *  - plain arithmetic (digits, + - * / ^ ( ) and at most one =): math, then logic (the equation
 *    restated in the DSL, only when that restatement is exact and no division by zero occurs), then
 *    rational.
 */
export function candidates(query: string): { kind: QueryKind; engines: Candidate[] } {
  const q = query.trim();
  if (q.startsWith('(')) {
    // "(1+2)=3" is arithmetic, "(AND …)" is DSL: a letter right after the parenthesis decides
    if (/^\(\s*[A-Za-z]/.test(q)) return { kind: 'logic_dsl', engines: [{ engine: 'logic', method: 'smt_z3', input: { query: q } }] };
  }
  if (isLatexMath(q)) return { kind: 'arithmetic', engines: [{ engine: 'math', method: 'exact_symbolic', input: { expression: q } }] };
  if (!ARITH_CHARS.test(q) || !/\d/.test(q) || (q.match(/=/g) ?? []).length > 1) return { kind: 'unsupported', engines: [] };
  const out: Candidate[] = [{ engine: 'math', method: 'exact_symbolic', input: { expression: q } }];
  let dsl: string | null = null;
  let parsed = false;
  try {
    const { left, right } = parseArith(q);
    parsed = true;
    if (right) {
      evaluate(left);
      evaluate(right);
      const l = toDsl(left);
      const r = toDsl(right);
      if (l !== null && r !== null) dsl = `(EQ ${l} ${r})`;
    }
  } catch (err) {
    if (!(err instanceof ArithRefusal)) throw err;
  }
  if (dsl) out.push({ engine: 'logic', method: 'smt_z3', input: { query: dsl } });
  if (parsed) out.push({ engine: 'rational', method: 'exact_rational', input: { expression: q } });
  return { kind: 'arithmetic', engines: out };
}
