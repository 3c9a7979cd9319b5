import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { SHA256_REF } from '../../../../core/json/canonical.js';

const check = (expression: string, expected_value: string, tolerance?: string) =>
  v(expression, { expected_value, ...(tolerance === undefined ? {} : { tolerance }) });

const P100 = '1267650600228229401496703205376';
const P200 = '1606938044258990275541962092341162602522202993782792835301376';

t.test('exact values above 1e30 are judged exactly, however they are written', async (t) => {
  const right: Array<[string, string]> = [
    ['2^100', P100],
    ['10^40 + 1', '10000000000000000000000000000000000000001'],
    ['factorial(30)', '265252859812191058636308480000000'],
    ['floor(10^35/3)', '33333333333333333333333333333333333'],
    ['ceil(10^31 + 0.5)', '10000000000000000000000000000001'],
    // √5 is not in K: these were computed in decimals, and an exact claim was never settled
    ['sqrt(5)^2*2^100', '6338253001141147007483516026880'],
    ['floor(sqrt(5)^2 * 10^35/3)', '166666666666666666666666666666666666'],
    ['factorial(sqrt(5)^2)*10^40', '1.2e42'],
  ];
  for (const [e, x] of right) {
    const o = check(e, x);
    t.equal(o.status, 'VERIFIED', `${e}: ${o.agent_message}`);
    t.equal(df(o).is_correct, true, e);
    t.match(o.proof_ref, SHA256_REF);
    // the last digit off: a wrong claim, VERIFIED with is_correct false (docs: outside)
    const wrong = x.includes('e') ? '1.2000000000000000000000000000000000000000001e42' : x.slice(0, -1) + String((Number(x.at(-1)) + 1) % 10);
    const w = check(e, wrong);
    t.equal(w.status, 'VERIFIED', `${e} vs ${wrong}`);
    t.equal(df(w).is_correct, false, `${e} vs ${wrong}`);
  }
  for (const [eq, result] of [[`2^100 = ${P100}`, true], [`2^100 = ${P100.slice(0, -1)}7`, false], ['sqrt(5)^2*2^100 = 5*2^100', true], ['sqrt(5)^2*2^100 = 5*2^100 + 1', false]] as const) {
    const o = v(eq);
    t.equal(o.status, 'VERIFIED', eq);
    t.equal(df(o).result, result, eq);
    t.equal(df(o).method, 'exact_evaluation', eq);
  }
});

t.test('the allowed tolerance of a rational value is exact at any magnitude', async (t) => {
  // 2^200·0.01 ends in …013.76; at 50 digits it rounded up to …0137828e58, and a tolerance above it passed
  const bound = `${P200.slice(0, -2)}.${P200.slice(-2)}`;
  const at = check('2^200', P200, bound);
  t.equal(at.status, 'VERIFIED', 'exactly at the bound is allowed');
  t.equal(df(at).max_allowed_tolerance, bound);
  for (const over of [`${bound}01`, `${P200.slice(0, -2)}.77`]) {
    const o = check('2^200', P200, over);
    t.equal(o.status, 'BLOCKED', over);
    t.equal(df(o).constraint_id, 'math_verifier.tolerance_exceeded', over);
    t.equal(df(o).max_allowed_tolerance, bound);
  }
  t.equal(df(check('-2^200', `-${P200}`, `${bound}01`)).constraint_id, 'math_verifier.tolerance_exceeded');
  // an irrational value's bound is rounded: √3·10^58 = 1.732…52538103806…e58 rounds up at 50 digits
  // to …538104e58, so …5381039e58 (above the bound) passed; a tolerance must clear it by its rounding
  const over = check('sqrt(3)*10^60', '1.7e60', '1.73205080756887729352744634150587236694280525381039e58');
  t.equal(df(over).constraint_id, 'math_verifier.tolerance_exceeded');
  t.match(df(over).error, /not provably within/);
  t.equal(df(check('sqrt(3)*10^60', '1.7e60', '1.7320508e58')).is_correct, false);
  t.equal(df(check('sqrt(3)*10^60', '1.7320508e60', '1.7320508e58')).is_correct, true);
});
