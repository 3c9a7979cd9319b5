import { exact, EvalError, Undecided, type Domain } from './exact.js';
import { evalDecChecked, kChecked, NeedComplex, settled } from './approx.js';
import { isConstant, type Ast } from './ast.js';
import { decideEquation } from './identity.js';
import { C, MathRefusal } from './errors.js';

export type RelOp = '<' | '>' | '<=' | '>=' | '!=';

export type Ordering = { sign: -1 | 0 | 1; method: 'exact_evaluation' | 'decimal_50_90' };

/**
 * The sign of left − right for two variable-free real sides: exact where the difference is in K
 * (rational, or a real element of Q(√2, √3)), else only where the 50- and 90-digit values agree on
 * it and it clears their rounding (`settled`); a difference within rounding of 0 is not decided.
 */
export function compareConstants(l: Ast, r: Ast, domain: Domain): Ordering {
  const diff: Ast = { k: 'sub', a: l, b: r };
  const k = exact(diff, null, domain);
  if (k) {
    if (!k.isReal()) throw new EvalError('domain', 'A complex number is not ordered.');
    const q = k.rational();
    if (q) return { sign: q.sign() as -1 | 0 | 1, method: 'exact_evaluation' };
    const c = kChecked(k);
    // an irrational element of K is never 0, and its sign is settled at these precisions
    if (settled(c.v50, c.v90, c.scale)) return { sign: c.v50.isNeg() ? -1 : 1, method: 'exact_evaluation' };
    throw new Undecided('The difference of the two sides is too close to 0 to decide its sign at 50 and 90 digits.');
  }
  let c;
  try {
    c = evalDecChecked(diff, null);
  } catch (err) {
    if (err instanceof NeedComplex) throw new EvalError('domain', 'A complex number is not ordered.');
    throw err;
  }
  if (!settled(c.v50, c.v90, c.scale)) throw new Undecided('The difference of the two sides is too close to 0 to decide its sign at 50 and 90 digits.');
  return { sign: c.v50.isNeg() ? -1 : 1, method: 'decimal_50_90' };
}

/** whether `left op right` holds, for variable-free sides; a relation over variables is refused */
export function decideRelation(l: Ast, r: Ast, op: RelOp, domain: Domain): { holds: boolean; method: Ordering['method'] } {
  if (!isConstant(l) || !isConstant(r)) {
    throw new MathRefusal(C.disallowed, 'Disallowed construct in expression: an inequality over variables (only variable-free sides are compared).', { construct: 'inequality with variables' });
  }
  if (op === '!=') {
    // ≠ is the negation of an equation, decided as one (complex values included)
    const eq = decideEquation(l, r, domain);
    if (eq.kind === 'holds') return { holds: false, method: 'exact_evaluation' };
    if (eq.kind === 'refuted' && eq.method === 'exact_evaluation') return { holds: true, method: 'exact_evaluation' };
    if (eq.kind === 'refuted') return { holds: true, method: 'decimal_50_90' };
    throw new Undecided('The two sides could not be told apart or shown equal.');
  }
  const o = compareConstants(l, r, domain);
  const holds = op === '<' ? o.sign < 0 : op === '>' ? o.sign > 0 : op === '<=' ? o.sign <= 0 : op === '>=' ? o.sign >= 0 : o.sign !== 0;
  return { holds, method: o.method };
}
