import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { SHA256_REF } from '../../../../core/json/canonical.js';

function holds(t: any, expr: string, ctx?: { domain: 'real' | 'complex' }) {
  const o = v(expr, ctx ? { context: ctx } : {});
  t.equal(o.status, 'VERIFIED', `${expr}: ${o.agent_message}`);
  t.equal(df(o).is_valid, true, expr);
  t.equal(df(o).result, true, expr);
  t.equal(df(o).message, 'Identity is true', expr);
  t.equal(df(o).simplified_difference, '0', expr);
  t.type(df(o).left_side, 'string');
  t.type(df(o).right_side, 'string');
  t.match(o.proof_ref, SHA256_REF);
  return o;
}

function refuted(t: any, expr: string, ctx?: { domain: 'real' | 'complex' }) {
  const o = v(expr, ctx ? { context: ctx } : {});
  t.equal(o.status, 'VERIFIED', `${expr}: ${o.agent_message}`);
  t.equal(df(o).is_valid, false, expr);
  t.equal(df(o).result, false, expr);
  t.ok(df(o).counterexample, `${expr} carries its counterexample`);
  t.match(o.proof_ref, SHA256_REF);
  return o;
}

t.test('exact arithmetic, decimals exact', async (t) => {
  holds(t, '122 + 468 = 590');
  holds(t, '0.1 + 0.2 = 0.3');
  holds(t, '1 / 8 = 0.125');
  holds(t, '19.99 * 3 = 59.97');
  holds(t, '2^3^2 = 512');
  holds(t, '5! = 120');
  holds(t, 'i^2 = -1');
  holds(t, 'sqrt(8) = 2*sqrt(2)');
  holds(t, '1/(sqrt(2)+1) = sqrt(2)-1');
  const two = refuted(t, '2+2=5');
  t.equal(df(two).simplified_difference, '-1');
  refuted(t, '0.1 + 0.2 = 0.30000000000000004');
  refuted(t, '1 / 3 = 0.333');
  refuted(t, '2**10 = 1000');
});

t.test('polynomial identities by the exact grid method', async (t) => {
  const o = holds(t, '(x+1)^2 = x^2+2x+1');
  t.equal(df(o).method, 'exact_grid');
  t.same(df(o).degree_bounds, [2]);
  holds(t, '(x + 1)**2 = x**2 + 2*x + 1');
  holds(t, '(a + b)*(a - b) = a**2 - b**2');
  holds(t, 'x**3 - y**3 = (x - y)*(x**2 + x*y + y**2)');
  holds(t, '(x**2 - 1)/(x - 1) = x + 1');
  holds(t, '1/(x*(x + 1)) = 1/x - 1/(x + 1)');
  holds(t, '1/(x - y) + 1/(y - x) = 0');
  holds(t, '(x + y)**10 = x**10 + 10*x**9*y + 45*x**8*y**2 + 120*x**7*y**3 + 210*x**6*y**4 + 252*x**5*y**5 + 210*x**4*y**6 + 120*x**3*y**7 + 45*x**2*y**8 + 10*x*y**9 + y**10');
  holds(t, 'pi*x^2 = x^2*pi');
  holds(t, 'α*β = β*α');
  const r = refuted(t, '(x + 1)**2 = x**2 + 1');
  t.same(df(r).counterexample.point, { x: '2' });
  refuted(t, 'x = 5');
  refuted(t, '(x + 1)**32 = x**32 + 1');
  refuted(t, '1/x + 1/y = 1/(x + y)');
});

t.test('exp, trig and hyperbolic identities are proven exactly, never by sampling', async (t) => {
  holds(t, 'sin(x)^2+cos(x)^2 = 1');
  holds(t, 'sin(x)**2 + cos(x)**2 = 1', { domain: 'real' });
  holds(t, 'sin(2*x) = 2*sin(x)*cos(x)');
  holds(t, 'cos(x + y) = cos(x)*cos(y) - sin(x)*sin(y)');
  holds(t, 'tan(x) = sin(x)/cos(x)');
  holds(t, 'cos(3*x) = 4*cos(x)**3 - 3*cos(x)');
  holds(t, 'sin(x + pi/2) = cos(x)');
  holds(t, 'exp(a + b) = exp(a)*exp(b)');
  holds(t, 'e^(2x) = exp(x)^2');
  holds(t, 'sinh(x)**2 - cosh(x)**2 = -1');
  holds(t, 'sin(pi/6) = 1/2');
  holds(t, 'sin(pi/4) = sqrt(2)/2');
  holds(t, 'cos(pi/12) = (sqrt(6)+sqrt(2))/4');
  holds(t, 'e^(i*pi) + 1 = 0');
  holds(t, 'exp(pi*i/3) = 1/2 + sqrt(3)/2*i');
  holds(t, 'e^(i*x) = cos(x) + i*sin(x)');
  holds(t, 'log(e) = 1');
  refuted(t, 'exp(x*i) = cos(x) - i*sin(x)');
  refuted(t, 'sin(x)**2 - cos(x)**2 = 1');
  refuted(t, 'sin(x + pi) = sin(x)');
  refuted(t, 'sin(pi/3) = 1/2');
  refuted(t, 'exp(a + b) = exp(a) + exp(b)');
});

t.test('sin^2+cos^2 = 1 is never a false VERIFIED, whatever the spelling', async (t) => {
  for (const expr of ['sin(x)^2+cos(x)^2 = 1', 'sin(x)**2+cos(x)**2 = 1', '1 = cos(y)^2 + sin(y)^2', 'sin(3x)^2 + cos(3x)^2 = 1']) {
    const o = v(expr);
    t.not(o.status === 'VERIFIED' && df(o).is_valid === false, true, expr);
  }
});

t.test('branch cuts: false identities are refuted, never verified', async (t) => {
  const s = refuted(t, 'sqrt(x**2) = x');
  t.equal(df(s).method, 'exact_point');
  refuted(t, 'sqrt(x**2) = x', { domain: 'real' });
  const l = refuted(t, 'log(x*y) = log(x) + log(y)');
  t.equal(df(l).method, 'numeric_point');
});

t.test('agreement only at sample points is BLOCKED with is_equivalent false', async (t) => {
  for (const expr of ['sqrt(x)^2 = x', 'sin(1)^2 + cos(1)^2 = 1', 'log(x^2) = 2*log(x)', 'exp(log(x)) = x']) {
    const o = v(expr, { context: { domain: 'real' } });
    t.equal(o.status, 'BLOCKED', `${expr}: ${o.agent_message}`);
    t.equal(df(o).is_equivalent, false, expr);
    t.equal(df(o).constraint_id, 'math_verifier.numeric_agreement_only', expr);
    t.equal(o.proof_ref, null);
  }
});

t.test('an equation that is undefined at every point is not decided', async (t) => {
  const o = v('1/(x-x) = 1');
  t.not(o.status, 'VERIFIED');
});

t.test('numeric refutation is confirmed at two precisions against the largest intermediate', async (t) => {
  // a true identity the exact method cannot see through (√x kept opaque) with huge cancelling terms
  const o = v('exp(100)*sqrt(x)^2 = exp(100)*x', { context: { domain: 'real' } });
  t.not(o.status, 'VERIFIED', 'cancellation of 1e43-sized terms never looks like a counterexample');
  const c = v('10^40*sqrt(x)^2 - 10^40*x = 0');
  t.not(c.status === 'VERIFIED' && df(c).is_valid === false, true);
});

t.test('identical sides hold without evaluation cost', async (t) => {
  const o = holds(t, '(x+1)^10000 = (x+1)^10000');
  t.equal(df(o).method, 'identical_sides');
  // beyond the grid bounds, an exact point still refutes
  t.equal(df(refuted(t, '(x+1)^10000 = (x+1)^10000 + 1')).method, 'exact_point');
});

t.test('floor and ceil are not decided from a rounded argument next to an integer', async (t) => {
  // (√7+1)(√7−1)+1 is 7 exactly (K holds no √7, and sums of roots are not kept exact); at 50 digits
  // it is 7 ± 1e-49, and a ceil of 8 refuted the true claim (sqrt(7)^2 was the case before roots were exact)
  const seven = '((sqrt(7)+1)*(sqrt(7)-1)+1)';
  for (const e of [`ceil(${seven}) = 7`, `x*ceil(${seven}) = 7x`, `ceil((${seven} - 7)/10^(-45)) = 0`]) {
    const o = v(e);
    t.equal(o.status, 'BLOCKED', `${e}: ${o.agent_message}`);
    t.equal(o.proof_ref, null);
  }
  for (const [e, x] of [[`ceil(${seven})`, '8'], ['floor((sqrt(5)+1)*(sqrt(5)-1)+1)', '4']]) {
    const o = v(e, { expected_value: x, tolerance: '0.005' });
    t.equal(o.status, 'BLOCKED', `${e} ≈ ${x}: ${o.agent_message}`);
    t.equal(df(o).constraint_id, 'math_verifier.numeric_agreement_only');
  }
  // arguments clear of an integer, or exact, are still decided
  t.equal(df(v('floor(pi)', { expected_value: '3', tolerance: '0.01' })).is_correct, true);
  holds(t, 'floor(2.5) + pi = 2 + pi');
  refuted(t, 'floor(pi*x) = 3x');
});

t.test('a double-precision complex value is trusted only beyond its error bound', async (t) => {
  // all true: e^{iπ} = −1, so the left sides are 0, iπ, i, 7; in doubles e^{iπ/5}^5 = −1 + 1.2e-16i
  // (or −1 − …i), which divided by 10^-20 or taken across log's branch cut refuted each of them
  for (const e of [
    '(exp(i*pi/5)^5 + 1) / 10^(-20) = 0',
    'x*(exp(i*pi/5)^5 + 1) / 10^(-20) = 0',
    'log(exp(i*pi*3/5)^5) = i*pi',
    'sqrt(exp(i*pi/25)^25) = i',
    'ceil(abs(sqrt(-7))^2) = 7',
  ]) {
    const o = v(e);
    t.not(o.status === 'VERIFIED' && df(o).is_valid === false, true, `${e}: ${o.agent_message}`);
  }
  for (const [e, x, tol] of [['i*(exp(i*pi/5)^5 + 1) / 10^(-20)', '-12246.467991473532', '0.01'], ['ceil(abs(sqrt(-7))^2)', '8', '0']]) {
    const o = v(e, { expected_value: x, tolerance: tol });
    t.equal(o.status, 'BLOCKED', `${e} ≈ ${x}: ${o.agent_message}`);
    t.equal(df(o).constraint_id, 'math_verifier.numeric_agreement_only');
  }
  // the value is 0: a tolerance of 100 is within 1% of its doubles (12246…), not of the value
  const wide = v('i*(exp(i*pi/5)^5 + 1) / 10^(-20)', { expected_value: '-12246.467991473532', tolerance: '100' });
  t.equal(df(wide).constraint_id, 'math_verifier.tolerance_exceeded');
  // values clear of any doubt still refute: exact negative reals sit on the cut on mathjs's side
  refuted(t, 'log(x*y) = log(x)+log(y)');
  refuted(t, '(-8)^(1/3) = -2');
  refuted(t, 'asin(2) = pi/2');
});
