import t from 'tap';
import { v, df } from '../../../helpers/math.js';

t.test('bare expressions: value with the legacy shape, UNVERIFIABLE', async (t) => {
  const cases: Array<[string, unknown]> = [
    ['2**10', 1024],
    ['factorial(10)', 3628800],
    ['sqrt(16)', 4],
    ['1/4 + 1/4', 0.5],
    ['abs(-7.5)', 7.5],
    ['cos(pi)', -1],
    ['0.1 + 0.2', 0.3],
    ['1/3', '1/3'],
    ['2^64', '18446744073709551616'],
    ['sqrt(2)/2', '1/2*sqrt(2)'],
  ];
  for (const [expr, value] of cases) {
    const o = v(expr);
    t.equal(o.status, 'UNVERIFIABLE', expr);
    t.equal(o.proof_ref, null);
    const d = df(o);
    t.same(d.value, value, expr);
    t.equal(d.is_symbolic, false);
    t.equal(d.is_complex, false);
    t.type(d.simplified, 'string');
    t.equal(d.original, expr);
  }
  const pi = df(v('pi'));
  t.match(pi.value, /^3\.14159265358979323846264338327950288419716939937/);
  t.equal(pi.is_exact, false);
});

t.test('symbolic and complex results', async (t) => {
  const s = v('x + x');
  t.equal(s.status, 'UNVERIFIABLE');
  t.equal(df(s).is_symbolic, true);
  t.equal(df(s).simplified, '2 * x');
  const c = v('sqrt(-4)');
  t.equal(c.status, 'UNVERIFIABLE');
  t.equal(df(c).is_complex, true);
  t.equal(df(c).value, '2*i');
  const lc = v('log(-1)');
  t.equal(df(lc).is_complex, true);
});

t.test('division by zero, log(0), non-real in the real domain', async (t) => {
  const cases: Array<[string, 'real' | 'complex', string]> = [
    ['1/0', 'complex', 'math_verifier.division_by_zero'],
    ['1/(2-2)', 'complex', 'math_verifier.division_by_zero'],
    ['0^-1', 'complex', 'math_verifier.division_by_zero'],
    ['tan(pi/2)', 'complex', 'math_verifier.division_by_zero'],
    ['1/0 = 5', 'complex', 'math_verifier.division_by_zero'],
    ['log(0)', 'complex', 'math_verifier.domain_error'],
    ['ln(0) + x = x', 'complex', 'math_verifier.domain_error'],
    ['sqrt(-4)', 'real', 'math_verifier.domain_error'],
    ['sqrt(-5)', 'real', 'math_verifier.domain_error'],
    ['log(-1)', 'real', 'math_verifier.domain_error'],
    ['asin(2)', 'real', 'math_verifier.domain_error'],
    ['factorial(-1)', 'complex', 'math_verifier.domain_error'],
    ['factorial(2.5)', 'complex', 'math_verifier.domain_error'],
    ['sqrt(-4) = 2i', 'real', 'math_verifier.domain_error'],
    ['i^2 = -1', 'real', 'math_verifier.domain_error'],
    ['x*i = i*x', 'real', 'math_verifier.domain_error'],
  ];
  for (const [expr, domain, id] of cases) {
    const o = v(expr, { context: { domain } });
    t.equal(o.status, 'BLOCKED', expr);
    const d = df(o);
    t.equal(d.is_valid, false, expr);
    t.equal(d.constraint_id, id, expr);
    t.type(d.error, 'string');
    t.type(d.message, 'string');
  }
  t.equal(v('sqrt(-4) = 2i').status, 'VERIFIED', 'the complex domain is the default');
});
