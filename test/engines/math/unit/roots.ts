import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { SHA256_REF } from '../../../../core/json/canonical.js';
import { exact, EvalError } from '../../../../plugins/engines/math/exact.js';
import { parseInput } from '../../../../plugins/engines/math/syntax.js';

const ex = (e: string, domain: 'real' | 'complex' = 'complex') => exact(parseInput(e).sides[0], null, domain)?.toString() ?? null;

t.test('a power or product of roots outside K that is back in K is exact', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['sqrt(5)^2', '5'],
    ['sqrt(5)^4', '25'],
    ['sqrt(5)^-2', '1/5'],
    ['(5^(1/2))^2', '5'],
    ['(5^(1/3))^6', '25'],
    ['cbrt(5)^3', '5'],
    ['cbrt(-5)^3', '-5'],
    ['sqrt(sqrt(5))^4', '5'],
    ['(2^(1/3))^(3/2)', 'sqrt(2)'],
    ['4^(1/4)', 'sqrt(2)'],
    ['sqrt(5)*sqrt(5)', '5'],
    ['3*sqrt(5)*sqrt(5)/5', '3'],
    ['5^(1/2)*5^(1/3)*5^(1/6)', '5'],
    ['sqrt(-5)^2', '-5'],
    ['((-5)^(1/2))^2', '-5'],
    // the principal cube root of −8 is 1 + i√3, as mathjs has it
    ['(-8)^(1/3)', '1 + i*sqrt(3)'],
    // products of unlike roots, under one index and in canonical form, back in K
    ['sqrt(5)*sqrt(20)', '10'],
    ['sqrt(2)*sqrt(5)*sqrt(10)', '10'],
    ['sqrt(20)/sqrt(5)', '2'],
    ['cbrt(2)*sqrt(2)*2^(1/6)', '2'],
    ['sqrt(5/3)*sqrt(15)', '5'],
    // still outside K: left to the numeric evaluators
    ['sqrt(5)', null],
    ['sqrt(5)^3', null],
    ['sqrt(5)^2.5', null],
    ['sqrt(5)*sqrt(7)', null],
    ['(sqrt(5)+1)*(sqrt(5)-1)', null],
  ];
  for (const [e, want] of cases) t.equal(ex(e), want, e);
  // the real domain keeps refusing what is not real on the way
  t.throws(() => ex('sqrt(-5)^2', 'real'), new EvalError('domain', 'Square root of a negative number is not real.'));
  t.equal(ex('((-8)^(1/3))^3', 'real'), null, 'a negative base under a fractional power is not real there');
  t.equal(v('((-8)^(1/3))^3', { context: { domain: 'real' } }).developer_fields.constraint_id, 'math_verifier.domain_error');
  t.equal(ex('cbrt(-5)^3', 'real'), '-5');
});

t.test('factorial and binomial of a root that is exactly an integer', async (t) => {
  for (const [e, value] of [['factorial(sqrt(5)^2)', 120], ['factorial(sqrt(4))', 2], ['binomial(sqrt(9), 2)', 3], ['factorial(sqrt(5)*sqrt(5))', 120], ['floor(sqrt(2)^2)', 2]] as const) {
    const o = v(e);
    t.equal(o.status, 'UNVERIFIABLE', e);
    t.equal(df(o).value, value, e);
    t.equal(df(o).is_exact, true, e);
  }
  const eq = v('factorial(sqrt(5)^2) = 120');
  t.equal(eq.status, 'VERIFIED');
  t.equal(df(eq).result, true);
  t.equal(df(eq).method, 'exact_evaluation');
  const claim = v('factorial(sqrt(5)^2)', { expected_value: '120' });
  t.equal(claim.status, 'VERIFIED');
  t.equal(df(claim).is_correct, true);
  t.match(claim.proof_ref, SHA256_REF);
  t.equal(df(v('factorial(sqrt(5)^2)', { expected_value: '121' })).is_correct, false);
  // sqrt(7)^2 was the engine's example of a rounded ceil; it is 7 exactly now
  t.equal(df(v('ceil(sqrt(7)^2) = 7')).result, true);
});

t.test('an argument within rounding of an integer is not provably one: no domain error', async (t) => {
  // (√5+1)(√5−1) is 4 exactly, but the engine holds it only in decimals (4 ± 1e-49)
  for (const e of ['factorial((sqrt(5)+1)*(sqrt(5)-1))', 'binomial((sqrt(5)+1)*(sqrt(5)-1), 2)', 'factorial(log(e^3))', 'factorial(-exp(i*pi/5)^5)']) {
    const o = v(e);
    t.equal(o.status, 'BLOCKED', e);
    t.equal(df(o).constraint_id, 'math_verifier.numeric_agreement_only', `${e}: ${df(o).message}`);
    t.match(df(o).message, /not provably an integer/, e);
    t.equal(o.proof_ref, null);
  }
  for (const [e, extra] of [['factorial((sqrt(5)+1)*(sqrt(5)-1)) = 24', {}], ['factorial((sqrt(5)+1)*(sqrt(5)-1))', { expected_value: '24' }]] as const) {
    const o = v(e, extra);
    t.equal(o.status, 'BLOCKED', e);
    t.equal(df(o).constraint_id, 'math_verifier.numeric_agreement_only', e);
  }
  // 5 + 1e-56 rounds to 5 at 50 digits: its factorial was computed as 120; it is irrational, so never an integer
  const near = v('factorial(sqrt(25 + 10^-55))', { expected_value: '120' });
  t.equal(near.status, 'BLOCKED');
  t.equal(df(near).constraint_id, 'math_verifier.domain_error');
  // provably not an integer, or provably negative: a true domain error
  for (const e of ['factorial(2.5)', 'factorial(-1)', 'binomial(2.5, 1)', 'factorial(sqrt(2))', 'factorial(sqrt(2)+1)', 'factorial(pi)', 'factorial(-(sqrt(5)+1)*(sqrt(5)-1))', 'factorial(exp(i*pi/7))']) {
    const o = v(e);
    t.equal(o.status, 'BLOCKED', e);
    t.equal(df(o).constraint_id, 'math_verifier.domain_error', `${e}: ${df(o).message}`);
  }
});
