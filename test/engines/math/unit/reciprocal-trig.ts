import t from 'tap';
import { v, df } from '../../../helpers/math.js';

/** sec, csc, cot and their inverses (issue 20): read as 1/cos, 1/sin, cos/sin, acos(1/x), asin(1/x), atan(1/x). */
t.test('reciprocal identities are decided', async (t) => {
  for (const e of ['1 + tan(x)**2 = sec(x)**2', '1 + cot(x)^2 = csc(x)^2', 'cot(x) = cos(x)/sin(x)', 'sec(x)*cos(x) = 1', 'tan(x)*cot(x) = 1']) {
    const o = v(e);
    t.equal(o.status, 'VERIFIED', e);
    t.equal(df(o).is_valid, true, e);
  }
  for (const e of ['sec(x) = cos(x)', 'csc(x) = 1/cos(x)', 'cot(x) = tan(x)']) {
    const o = v(e);
    t.equal(o.status, 'VERIFIED', e);
    t.equal(df(o).is_valid, false, `${e} is false`);
  }
  t.equal(v('cot(x) = cos(x)/sin(x)').status, 'VERIFIED', 'an equation starting with cot(x) is not a function definition');
});

t.test('values, exact where the field is', async (t) => {
  const cases: Array<[string, string]> = [['sec(0)', '1'], ['cot(pi/4)', '1'], ['csc(pi/6)', '2'], ['cot(pi/2)', '0']];
  for (const [e, value] of cases) t.equal(String(df(v(e)).value), value, e);
  t.match(String(df(v('asec(2)')).value), /^1\.0471975511965977/, 'asec(2) = π/3');
  t.match(String(df(v('acsc(2)')).value), /^0\.5235987755982988/, 'acsc(2) = π/6');
  t.match(String(df(v('acot(1)')).value), /^0\.7853981633974483/, 'acot(1) = π/4');
  const pole = v('sec(pi/2)');
  t.equal(pole.status, 'BLOCKED', 'sec at a pole of cos is a division by zero');
  t.equal(df(pole).constraint_id, 'math_verifier.division_by_zero');
});
