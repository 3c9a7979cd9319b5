import type { Verifier } from '../../../core/types.js';
import { blocked, unverifiable, verified } from '../../../core/verdict.js';
import { ArithRefusal, evaluate, formatQ, parseArith } from './rational.js';
import { C } from './errors.js';

export const RATIONAL_VERSION = '1.0.0';

const REFUSALS: Record<ArithRefusal['reason'], string> = {
  syntax: C.rationalSyntax,
  division_by_zero: C.rationalDivZero,
  cost: C.rationalCost,
  non_integer_exponent: C.rationalIrrational,
};

/**
 * `verifier.rational` (input `{expression}`): an equation is proven or refuted in exact rational
 * arithmetic (VERIFIED, is_valid = it holds); a bare expression's value is computed, not verified.
 */
export const rationalVerifier: Verifier = {
  async verify(input) {
    const expression = typeof input.expression === 'string' ? input.expression.trim() : '';
    try {
      const { left, right } = parseArith(expression);
      const lv = evaluate(left);
      if (!right) {
        const value = formatQ(lv);
        return unverifiable(`Computed value ${value} (a computed value is not a verified claim).`, { value, method: 'exact_rational' });
      }
      const rv = evaluate(right);
      const holds = lv.n === rv.n && lv.d === rv.d;
      const fields = { is_valid: holds, left_value: formatQ(lv), right_value: formatQ(rv), method: 'exact_rational' };
      return verified(holds ? 'The equation holds in exact rational arithmetic.' : 'The equation is false in exact rational arithmetic.', fields, {
        engine: 'rational',
        engine_version: RATIONAL_VERSION,
        input: { expression },
        result: { holds, left: fields.left_value, right: fields.right_value },
      });
    } catch (err) {
      if (!(err instanceof ArithRefusal)) throw err;
      return blocked(`Cannot evaluate exactly: ${err.message}.`, REFUSALS[err.reason], { is_valid: false });
    }
  },
};
