import t from 'tap';
import { v, df } from '../../../helpers/math.js';
import { readLatexExpression, isLatex } from '../../../../plugins/engines/math/latex/index.js';

/**
 * LaTeX as language models write it (issue 46), read onto the exact engine: each construct with
 * the reading it must get, claims that hold and claims that do not (never VERIFIED true for those),
 * and the refusals the documented rules call for.
 */
const read = (s: string, dec: '.' | ',' = '.') => readLatexExpression(s, dec).plain;

t.test('the reader is chosen by a backslash, brace, dollar or percent sign only', async (t) => {
  for (const s of ['\\frac12', '2^{3}', '$1+1$', '50%', '\\{1\\}']) t.ok(isLatex(s), s);
  for (const s of ['1+1', '2^3', 'sqrt(2)', '(x+1)^2 = x^2+2x+1', 'x**2']) t.notOk(isLatex(s), s);
});

t.test('readings: each construct in its plain syntax', async (t) => {
  const cases: Array<[string, string]> = [
    // fractions
    ['\\frac{1}{2}', '1/2'], ['\\dfrac{3}{4}', '3/4'], ['\\tfrac{5}{6}', '5/6'], ['\\cfrac{1}{x}', '1/x'], ['\\frac12', '1/2'],
    ['\\frac{a+b}{c-d}', '(a + b)/(c - d)'], ['\\frac{1}{2}x', '1/2*x'], ['\\frac{\\pi}{2}', 'pi/2'], ['\\frac\\pi4', 'pi/4'],
    ['\\frac{\\frac{1}{2}}{3}', '1/2/3'], ['2\\frac{1}{2}', '2 + 1/2'], ['-3\\frac{1}{4}', '-(3 + 1/4)'], ['2\\frac{3}{2}', '2*3/2'],
    // roots
    ['\\sqrt{8}', 'sqrt(8)'], ['\\sqrt2', 'sqrt(2)'], ['\\sqrt[3]{27}', 'cbrt(27)'], ['\\sqrt[2]{9}', 'sqrt(9)'], ['\\sqrt[4]{16}', '16^(1/4)'],
    ['2\\sqrt{2}', '2*sqrt(2)'], ['\\sqrt{x^2+1}', 'sqrt(x^2 + 1)'],
    // products and quotients
    ['2 \\cdot 3', '2*3'], ['2 \\times 3', '2*3'], ['6 \\div 4', '6/4'], ['2\\pi', '2*pi'], ['2 \\ast 3', '2*3'], ['xy', 'x*y'], ['2ab', '2*a*b'],
    ['(x+1)(x-1)', '(x + 1)*(x - 1)'], ['3(x+2)', '3*(x + 2)'],
    // powers and subscripts
    ['x^{2}', 'x^2'], ['x^2', 'x^2'], ['2^{10}', '2^10'], ['x^{-1}', 'x^(-1)'], ['e^{i\\pi}', 'e^(i*pi)'], ['x^{y^{2}}', 'x^(y^2)'],
    ['x_1 + x_2', 'x_1 + x_2'], ['a_{n}', 'a_n'], ['x_{12}', 'x_12'], ['x^2y', 'x^2*y'], ['-x^2', '-x^2'],
    // brackets and spacing
    ['\\left(\\frac{1}{2}\\right)^{2}', '(1/2)^2'], ['\\left[ x + 1 \\right]', 'x + 1'], ['\\{x\\}', ''], ['1\\,000', '1000'], ['2\\;+\\;3', '2 + 3'],
    ['2\\!\\cdot\\!3', '2*3'], ['2 \\quad + 3', '2 + 3'], ['\\displaystyle \\frac{1}{2}', '1/2'], ['{x}+{1}', 'x + 1'], ['\\big( 2 \\big)', '2'],
    // constants and Greek
    ['\\pi', 'pi'], ['e', 'e'], ['\\mathrm{e}^{2}', 'e^2'], ['i^2', 'i^2'], ['\\alpha + \\beta', 'α + β'], ['\\theta_1', 'θ_1'], ['π', 'pi'],
    // functions
    ['\\sin x', 'sin(x)'], ['\\sin(x)', 'sin(x)'], ['\\sin 2x', 'sin(2*x)'], ['\\sin^2 x', 'sin(x)^2'], ['\\sin^{-1} x', 'asin(x)'],
    ['\\sin x \\cos x', 'sin(x)*cos(x)'], ['\\cos\\frac{\\pi}{3}', 'cos(pi/3)'], ['\\tan{x}', 'tan(x)'], ['\\arctan 1', 'atan(1)'],
    ['\\ln x', 'ln(x)'], ['\\ln(e^2)', 'ln(e^2)'], ['\\log_{10} 100', 'log10(100)'], ['\\log_2 8', 'ln(8)/ln(2)'], ['\\exp(2)', 'exp(2)'],
    ['\\operatorname{sin} x', 'sin(x)'], ['\\sec x', 'sec(x)'], ['\\sinh 1', 'sinh(1)'],
    // bars, floors, binomials, factorials
    ['|x|', 'abs(x)'], ['\\left|-3\\right|', 'abs(-3)'], ['\\lvert x \\rvert', 'abs(x)'], ['2|x|', '2*abs(x)'], ['\\lfloor 2.5 \\rfloor', 'floor(2.5)'],
    ['\\lceil 2.5 \\rceil', 'ceil(2.5)'], ['\\binom{5}{2}', 'binomial(5, 2)'], ['\\dbinom{n}{k}', 'binomial(n, k)'], ['5!', '5!'], ['(2+1)!', '(2 + 1)!'],
    // percentages, degrees, boxed
    ['50\\%', '(50/100)'], ['12.5\\% \\cdot 8', '(12.5/100)*8'], ['30^\\circ', '(30*pi/180)'], ['30^{\\circ}', '(30*pi/180)'], ['\\boxed{42}', '42'],
    // numbers by the locale rules
    ['1{,}000', '1000'], ['1,000 + 1', '1000 + 1'], ['1,234,567', '1234567'], ['1\\,234\\,567.5', '1234567.5'], ['1~000', '1000'], ['0.5', '0.5'], ['.5', '0.5'],
    // relations
    ['\\frac{1}{2} = 0.5', '1/2 = 0.5'], ['2 \\le 3', '2 <= 3'], ['2 \\ge 3', '2 >= 3'], ['2 \\neq 3', '2 != 3'], ['2 \\leq 3', '2 <= 3'], ['2 < 3', '2 < 3'],
    ['$\\frac{1}{2}$', '1/2'], ['$$x^{2}$$', 'x^2'], ['\\(x+1\\)', 'x + 1'], ['\\[2\\]', '2'], ['\\frac{1}{2}.', '1/2'],
  ];
  for (const [latex, plain] of cases) {
    if (plain === '') continue;
    t.equal(read(latex), plain, latex);
  }
  t.equal(read('3{,}5', ','), '3.5', 'decimal comma');
  t.equal(read('3,5 + 1', ','), '3.5 + 1', 'decimal comma outside braces');
  t.equal(read('1.234.567,5', ','), '1234567.5', 'thousands by dots');
  t.equal(read('1\\,000{,}25', ','), '1000.25');
});

t.test('claims that hold are VERIFIED true; their false twins VERIFIED false', async (t) => {
  const cases: Array<[string, string]> = [
    ['\\frac{1}{2} = 0.5', '\\frac{1}{2} = 0.6'], ['\\sqrt{8} = 2\\sqrt{2}', '\\sqrt{8} = 3\\sqrt{2}'], ['\\dfrac{3}{4}=0.75', '\\dfrac{3}{4}=0.7'],
    ['\\tfrac12 + \\frac13 = \\frac{5}{6}', '\\tfrac12 + \\frac13 = \\frac{2}{5}'], ['\\sqrt[3]{27} = 3', '\\sqrt[3]{27} = 9'], ['\\sqrt[3]{-8} = -2', '\\sqrt[3]{-8} = 2'],
    ['\\sqrt[4]{16} = 2', '\\sqrt[4]{16} = 4'], ['2 \\cdot 3 = 6', '2 \\cdot 3 = 5'], ['7 \\times 8 = 56', '7 \\times 8 = 54'], ['6 \\div 4 = 1.5', '6 \\div 4 = 1.4'],
    ['\\left(\\frac{1}{2}\\right)^{2} = \\frac14', '\\left(\\frac{1}{2}\\right)^{2} = \\frac12'], ['e^{i\\pi} + 1 = 0', 'e^{i\\pi} - 1 = 0'],
    ['\\sin^2 x + \\cos^2 x = 1', '\\sin^2 x + \\cos^2 x = 2'], ['\\frac{1}{2}x = \\frac{x}{2}', '\\frac{1}{2}x = \\frac{1}{2x}'],
    ['2^{10} = 1024', '2^{10} = 1000'], ['50\\% = 0.5', '50\\% = 5'], ['1{,}000 + 1 = 1001', '1{,}000 + 1 = 2'], ['1\\,000\\,000 = 10^{6}', '1\\,000\\,000 = 10^{5}'],
    ['2\\frac{1}{2} = 2.5', '2\\frac{1}{2} = 1'], ['x_1 + x_2 = x_2 + x_1', 'x_1 + x_2 = x_1 - x_2'], ['\\binom{5}{2} = 10', '\\binom{5}{2} = 20'],
    ['\\left| -3 \\right| = 3', '\\left| -3 \\right| = -3'], ['5! = 120', '5! = 100'], ['30^\\circ = \\frac{\\pi}{6}', '30^\\circ = \\frac{\\pi}{3}'],
    ['\\sin 30^\\circ = \\frac12', '\\sin 30^\\circ = \\frac{\\sqrt3}{2}'], ['\\cos\\frac{\\pi}{3} = \\frac{1}{2}', '\\cos\\frac{\\pi}{3} = 1'],
    ['(x+1)^{2} = x^{2}+2x+1', '(x+1)^{2} = x^{2}+x+1'], ['\\frac{x^2-1}{x-1} = x+1', '\\frac{x^2-1}{x-1} = x-1'], ['\\log_{10} 1000 = 3', '\\log_{10} 1000 = 4'],
    ['\\lfloor 2.5 \\rfloor = 2', '\\lfloor 2.5 \\rfloor = 3'], ['\\lceil 2.5 \\rceil = 3', '\\lceil 2.5 \\rceil = 2'], ['$2+2=4$', '$2+2=5$'],
    ['\\boxed{3} = 3', '\\boxed{3} = 4'], ['\\frac{\\sqrt{2}}{2} = \\frac{1}{\\sqrt{2}}', '\\frac{\\sqrt{2}}{2} = \\sqrt{2}'], ['12.5\\% \\cdot 8 = 1', '12.5\\% \\cdot 8 = 100'],
    ['\\frac{1}{2} \\neq 0.6', '\\frac{1}{2} \\neq 0.5'], ['\\sqrt{2} < 1.5', '\\sqrt{2} < 1.4'], ['\\pi \\ge 3.14', '\\pi \\ge 3.15'], ['\\pi \\le 3.15', '\\pi \\le 3.14'],
    ['\\pi > 1', '1 > \\pi'], ['3 \\geq 3', '3 \\gt 3'], ['\\frac{1}{3} \\leq 0.34', '\\frac{1}{3} \\leq 0.33'], ['i \\neq 1', 'i \\ne i'],
  ];
  for (const [yes, no] of cases) {
    const a = v(yes);
    t.equal(a.status, 'VERIFIED', `${yes}: ${a.agent_message} ${df(a).message ?? ''}`);
    t.equal(df(a).is_valid, true, yes);
    t.match(a.proof_ref, /^sha256:/, yes);
    if (isLatex(yes)) t.type(df(a).read_as, 'string', `${yes}: the reading is shown`);
    const b = v(no);
    t.equal(b.status, 'VERIFIED', `${no}: ${b.agent_message} ${df(b).message ?? ''}`);
    t.equal(df(b).is_valid, false, `${no} is never proven true`);
  }
});

t.test('refusals by rule: never a guess', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['$2^10$', 'parse_error', /number directly after/], ['\\frac123', 'parse_error', /number directly after/], ['\\sqrt16', 'parse_error', /number directly after/],
    ['$x^-1$', 'parse_error', /negative exponent/], ['$x^2^3$', 'parse_error', /double exponent/], ['\\log 100 = 2', 'parse_error', /without a base/],
    ['\\sqrt[5]{-32} = -2', 'disallowed_construct', /odd root/], ['\\sqrt[x]{2}', 'parse_error', /index/], ['5\\text{ cm} = 5', 'disallowed_construct', /text/],
    ['\\text{five} = 5', 'disallowed_construct', /text/], ['\\{1,2\\}', 'disallowed_construct', /set/], ['$[1,2)$', 'disallowed_construct', /interval/],
    ['$(1,2)$', 'disallowed_construct', /interval or tuple/], ['x \\in [1,2]', 'disallowed_construct', /\\in/], ['$1 < x < 2$', 'disallowed_construct', /chain/],
    ['x \\lt 2', 'disallowed_construct', /inequality over variables/], ['\\infty', 'disallowed_construct', /infty/], ['1 \\pm 2', 'disallowed_construct', /pm/],
    ['\\sum_{i=1}^{n} i', 'disallowed_construct', /\\sum/], ['\\int_0^1 x\\,dx', 'disallowed_construct', /\\int/], ['\\frac{1}{2', 'parse_error', /Expected/],
    ['\\left( 1 + 2', 'parse_error', /Expected/], ['1/2x', 'ambiguous_implicit_multiplication', /ambiguous/], ['\\frac{1}{2}/2x', 'ambiguous_implicit_multiplication', /ambiguous/],
    ['1 2', 'parse_error', /./], ['1\\,23', 'parse_error', /number directly after/], ['1,2345 + 1', 'parse_error', /./], ['\\operatorname{lcm}(2,3)', 'disallowed_construct', /lcm/],
    ['\\$5', 'parse_error', /'\$'/], ['$1 = 2 = 3$', 'disallowed_construct', /chain/], ['a \\approx b', 'parse_error', /approx/], ['2 \\cdot', 'parse_error', /ends/],
    ['\\frac{1}{0} = 1', 'division_by_zero', /./], ['\\sqrt{-1} < 2', 'domain_error', /ordered/], ['x\\%$', 'parse_error', /\$/], ['\\', 'parse_error', /backslash/],
    ['\\ln', 'parse_error', /argument/], ['\\sin + 1', 'parse_error', /argument/], ['\\mathrm{cm}^2', 'disallowed_construct', /text/], ['\\left. x \\right|', 'parse_error', /./],
  ];
  for (const [latex, id, why] of cases) {
    const o = v(latex);
    t.equal(o.status, 'BLOCKED', `${latex}: ${o.status} ${df(o).message}`);
    t.equal(df(o).constraint_id, `math_verifier.${id}`, `${latex}: ${df(o).message}`);
    t.match(String(df(o).message), why, latex);
    t.equal(o.proof_ref, null, latex);
  }
});

t.test('the plain syntax reads as before, and a LaTeX reading is bound into the proof', async (t) => {
  const plain = v('(x+1)^2 = x^2+2x+1');
  t.notOk('read_as' in df(plain), 'no reading for plain input');
  const a = v('(x+1)^{2} = x^2+2x+1');
  const b = v('\\left(x+1\\right)^2 = x^2+2x+1');
  t.equal(df(a).read_as, '(x + 1)^2 = x^2 + 2*x + 1');
  t.equal(df(a).read_as, df(b).read_as, 'one reading of two spellings');
  t.not(a.proof_ref, b.proof_ref, 'the proof binds the input as written, as for plain input');
  t.not(plain.proof_ref, a.proof_ref);
  const deep = v(`${'\\frac{1}{'.repeat(70)}2${'}'.repeat(70)}`);
  t.equal(df(deep).constraint_id, 'math_verifier.depth_exceeded', 'the reader bounds its nesting');
  const wide = v(`${'\\frac{1}{2}+'.repeat(400)}1`);
  t.equal(wide.status, 'BLOCKED', 'a long sum is bounded as in the plain syntax');
  t.equal(v('\\frac{1}{2} = 0.5', { context: { domain: 'real' } }).status, 'VERIFIED');
  t.equal(df(v('i^{2} = -1', { context: { domain: 'real' } })).constraint_id, 'math_verifier.domain_error');
});
