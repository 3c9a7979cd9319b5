import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { SHA256_REF } from '../../../../core/json/canonical.js';

const check = (expression: string, expected_value: string | number, tolerance?: string | number) =>
  v(expression, { expected_value, ...(tolerance === undefined ? {} : { tolerance }) });

t.test('within and outside tolerance are VERIFIED with is_correct', async (t) => {
  const within: Array<[string, string, string]> = [
    ['sqrt(2)', '1.414214', '0.000001'],
    ['pi', '3.14159', '0.00001'],
    ['1/3', '0.333333', '0.000001'],
    ['0.1 + 0.2', '0.3', '0'],
    ['100*1.05**3', '115.7625', '0'],
    ['factorial(10)/2**10', '3543.75', '0'],
    ['100', '99', '1'],
    ['1', '0.99', '0.01'],
  ];
  for (const [e, x, tol] of within) {
    const o = check(e, x, tol);
    t.equal(o.status, 'VERIFIED', `${e} ≈ ${x}`);
    t.equal(df(o).is_correct, true, `${e} ≈ ${x}`);
    t.match(o.proof_ref, SHA256_REF);
    t.equal(df(o).precision_mode, 'decimal');
  }
  const outside: Array<[string, string, string | undefined]> = [
    ['sqrt(2)', '1.4142', '0.000001'],
    ['1/3', '0.333333', '0'],
    ['2/3', '0.666667', '0'],
    ['pi', '3.14159', undefined],
    ['100', '98.99', '1'],
  ];
  for (const [e, x, tol] of outside) {
    const o = check(e, x, tol);
    t.equal(o.status, 'VERIFIED', `${e} vs ${x}`);
    t.equal(df(o).is_correct, false, `${e} vs ${x}`);
    t.equal(df(o).is_valid, false);
  }
});

t.test('tolerance policy: too large, negative, NaN, Infinity, non-numeric are BLOCKED', async (t) => {
  const cases: Array<[string, string | number, string | number]> = [
    ['100', '95', '10'],
    ['100', '95', '1.0000001'],
    ['2', '1.5', '0.5'],
    ['50', '50', 1],
    ['0', '0', '0.010001'],
    ['sqrt(2)', '1.414214', '-0.001'],
    ['sqrt(2)', '1.414214', -1e-9],
    ['pi', '3.141593', 'NaN'],
    ['pi', '3.141593', 'Infinity'],
    ['pi', '3.141593', '-Infinity'],
    ['pi', '3.141593', 'abc'],
    ['pi', '3.141593', ''],
    ['pi', '3.141593', '1e-3x'],
  ];
  for (const [e, x, tol] of cases) {
    const o = check(e, x, tol);
    t.equal(o.status, 'BLOCKED', `${e} tol ${tol}`);
    t.equal(o.proof_ref, null);
    const d = df(o);
    t.equal(d.is_correct, false);
    t.type(d.error, 'string');
    t.type(d.requested_tolerance, 'string');
    t.type(d.max_allowed_tolerance, 'string');
    t.type(d.calculated_value, 'string');
    t.match(d.precision_mode, /^(decimal|float)$/);
  }
  const d = df(check('100', '95', '10'));
  t.equal(d.max_allowed_tolerance, '1');
  t.equal(d.calculated_value, '100');
  t.equal(d.requested_tolerance, '10');
  t.equal(d.constraint_id, 'math_verifier.tolerance_exceeded');
  // the bound is max(0.01, |value|·0.01): exactly at the bound is allowed
  t.equal(check('100', '99', '1').status, 'VERIFIED');
  t.equal(check('0.5', '0.49', '0.01').status, 'VERIFIED');
  t.equal(check('-200', '-198', '2').status, 'VERIFIED');
  t.equal(df(check('-200', '-198', '2')).is_correct, true);
});

t.test('JSON numbers are read through their decimal form and reported as float mode', async (t) => {
  const o = check('0.1 + 0.2', 0.3, 0);
  t.equal(o.status, 'VERIFIED');
  t.equal(df(o).is_correct, true);
  t.equal(df(o).precision_mode, 'float');
  const bad = check('1', 'one', '0');
  t.equal(bad.status, 'BLOCKED');
  t.equal(df(bad).constraint_id, 'math_verifier.invalid_expected_value');
});

t.test('expected values need a numeric expression', async (t) => {
  t.equal(check('x + 1', '2', '0').status, 'UNVERIFIABLE');
  t.equal(v('1 + 1 = 2', { expected_value: '2' }).status, 'BLOCKED');
});

t.test('a value whose large terms cancel is not judged from its 50-digit form', async (t) => {
  // true values: 73176679.73… (√2 against a 52-digit truncation, times 10^60) and exactly 0;
  // at 50 digits both come out as rounding noise that once "matched" any claim near it
  const cases: Array<[string, string]> = [
    ['(sqrt(2) - 1.4142135623730950488016887242096980785696718753769480000)*10^60', '0'],
    ['((sqrt(7)+1)*(sqrt(7)-1) - 6)*10^49', '3'],
    ['((sqrt(7)+1)*(sqrt(7)-1) - 6)*10^49', '0'],
  ];
  for (const [e, x] of cases) {
    const o = check(e, x, '0.01');
    t.equal(o.status, 'BLOCKED', `${e} vs ${x}: ${o.agent_message}`);
    t.equal(df(o).constraint_id, 'math_verifier.numeric_agreement_only');
    t.equal(df(o).is_correct, false);
    t.equal(o.proof_ref, null);
  }
  // a value that is only irrational still gets its answer
  t.equal(df(check('sqrt(7)', '2.6457513', '0.0000001')).is_correct, true);
  t.equal(df(check('pi*10^20', '314159265358979323846.26', '0.01')).is_correct, true);
});
