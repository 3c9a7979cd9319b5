import t, { type Test } from 'tap';
import { verify, type MathRequest } from '../../../../plugins/engines/math/engine.js';
import { extractAnswer } from '../../../../plugins/engines/math/answer/extract.js';

/**
 * Answer equivalence (`expected`, issue 46): gold/prediction pairs as a public math grader meets
 * them. `equal` must be proven with the form named; `unequal` pairs are never VERIFIED equal.
 */
type Want = 'equal' | 'unequal' | 'refused';
const check = (expression: string, expected: string, extra: Partial<MathRequest> = {}) => verify({ expression, expected, ...extra });
const f = (o: ReturnType<typeof verify>) => o.developer_fields as Record<string, any>;

function run(t: Test, cases: Array<[string, string, Want, string?]>, extra: Partial<MathRequest> = {}) {
  for (const [pred, gold, want, form] of cases) {
    const o = check(pred, gold, extra);
    const d = f(o);
    const label = `${pred} vs ${gold}: ${o.status} ${d.message ?? ''}`;
    if (want === 'equal') {
      t.equal(o.status, 'VERIFIED', label);
      t.equal(d.is_correct, true, label);
      if (form) t.equal(d.equivalence, form, label);
      t.match(o.proof_ref, /^sha256:/, label);
    } else if (want === 'unequal') {
      t.notOk(o.status === 'VERIFIED' && d.is_correct === true, `never VERIFIED equal: ${label}`);
      t.equal(o.status, 'VERIFIED', `refuted: ${label}`);
      t.equal(d.is_correct, false, label);
    } else {
      t.not(o.status, 'VERIFIED', label);
      t.equal(o.proof_ref, null, label);
    }
  }
}

t.test('numbers: fractions, decimals, radicals, percentages, separators, mixed numbers', async (t) => {
  run(t, [
    ['\\frac{1}{2}', '0.5', 'equal', 'number'], ['0.5', '\\frac12', 'equal', 'number'], ['\\dfrac{3}{4}', '0.75', 'equal', 'number'], ['\\tfrac{2}{4}', '\\frac{1}{2}', 'equal', 'number'],
    ['\\frac{6}{8}', '0.75', 'equal'], ['1/3', '\\frac{1}{3}', 'equal'], ['0.333', '\\frac{1}{3}', 'unequal'], ['\\frac{2}{3}', '0.67', 'unequal'], ['\\frac{1}{2}', '0.6', 'unequal'],
    ['2\\sqrt{2}', '\\sqrt{8}', 'equal'], ['\\frac{\\sqrt{2}}{2}', '\\frac{1}{\\sqrt{2}}', 'equal'], ['\\sqrt{12}', '2\\sqrt{3}', 'equal'], ['\\sqrt{12}', '3\\sqrt{2}', 'unequal'],
    ['\\sqrt[3]{8}', '2', 'equal'], ['\\sqrt[4]{81}', '3', 'equal'], ['\\frac{\\sqrt{3}}{2}', '\\frac{\\sqrt3}2', 'equal'], ['\\frac{\\sqrt{3}}{2}', '\\frac{\\sqrt2}2', 'unequal'],
    ['2\\pi', '\\pi \\cdot 2', 'equal'], ['\\pi', '3.14', 'unequal'], ['\\frac{\\pi}{6}', '30^\\circ', 'equal'], ['\\frac{\\pi}{5}', '30^\\circ', 'unequal'], ['e^{0}', '1', 'equal'], ['10^{-3}', '0.001', 'equal'],
    ['50\\%', '0.5', 'equal'], ['50\\%', '50', 'equal'], ['50\\%', '\\frac{1}{2}', 'equal'], ['50\\%', '40', 'unequal'], ['12.5\\%', '0.125', 'equal'], ['25\\%', '25\\%', 'equal'],
    ['1,000', '1000', 'equal'], ['1{,}000', '1000', 'equal'], ['1\\,000', '1000', 'equal'], ['1,234,567', '1234567', 'equal'], ['1,234.5', '1234.5', 'equal'], ['10,000', '1000', 'unequal'],
    ['2\\frac{1}{2}', '\\frac{5}{2}', 'equal'], ['2\\frac{1}{2}', '2.5', 'equal'], ['-2\\frac{1}{2}', '-2.5', 'equal'], ['3\\frac{1}{4}', '3.5', 'unequal'], ['6\\frac{1}{4}', '\\frac{25}{4}', 'equal'],
    ['-5', '-5', 'equal'], ['-5', '5', 'unequal'], ['5.0', '5', 'equal'], ['05', '5', 'equal'], ['\\infty', '\\infty', 'equal'], ['-\\infty', '\\infty', 'unequal'],
    ['\\binom{5}{2}', '10', 'equal'], ['5!', '120', 'equal'], ['|{-7}|', '7', 'equal'], ['\\left(\\frac{2}{3}\\right)^{2}', '\\frac{4}{9}', 'equal'], ['2^{10}', '1024', 'equal'],
    ['\\frac{1}{0}', '1', 'refused'], ['\\log 100', '2', 'refused'],
  ]);
});

t.test('sets, lists, intervals, tuples, inequalities', async (t) => {
  run(t, [
    ['\\{1,2\\}', '\\{2,1\\}', 'equal', 'set'], ['\\{1,2\\}', '\\{1,3\\}', 'unequal'], ['\\{1,2,3\\}', '\\{1,2\\}', 'unequal'], ['1, 2', '\\{2, 1\\}', 'equal', 'set'],
    ['x=2, x=3', '2,3', 'equal', 'set'], ['2 \\text{ and } 3', '2, 3', 'refused'], ['\\{\\frac12, 2\\}', '\\{0.5, 2\\}', 'equal'], ['\\emptyset', '\\{\\}', 'equal', 'set'],
    ['1 \\pm \\sqrt{2}', '1-\\sqrt{2}, 1+\\sqrt{2}', 'equal', 'set'], ['\\pm 2', '2, -2', 'equal', 'set'], ['\\{3\\}', '3', 'equal', 'number'], ['3', '\\{3, 4\\}', 'unequal'],
    ['[1,2]', '[1, 2]', 'equal', 'interval'], ['[1,2)', '[1,2]', 'unequal'], ['(1,2]', '[1,2]', 'unequal'], ['[1,2]', '[1,3]', 'unequal'], ['[\\frac12, 1)', '[0.5, 1)', 'equal', 'interval'],
    ['x \\in [1,2]', '[1,2]', 'equal', 'interval'], ['(-\\infty, 3]', 'x \\le 3', 'equal', 'interval'], ['(-\\infty, 3)', 'x \\le 3', 'unequal'], ['x > 2', '(2, \\infty)', 'equal', 'interval'],
    ['x \\geq 2', '[2, \\infty)', 'equal'], ['x \\ge 2', '(2, \\infty)', 'unequal'], ['1 \\le x < 3', '[1,3)', 'equal', 'interval'], ['3 > x \\ge 1', '[1,3)', 'equal'],
    ['1 < x < 3', '(1,3)', 'equal', 'interval'], ['1 < x < 3', '[1,3]', 'unequal'], ['2 < x', '(2,\\infty)', 'equal'], ['(-\\infty, \\infty)', '(-\\infty,\\infty)', 'equal'],
    ['(1,2)', '(1, 2)', 'equal', 'tuple'], ['(2,1)', '(1,2)', 'unequal'], ['(1,2,3)', '(1,2,3)', 'equal', 'tuple'], ['(1,2,3)', '(1,3,2)', 'unequal'], ['(\\frac12, 3)', '(0.5, 3)', 'equal'],
    ['(1,2)', '[1,2]', 'unequal'], ['(1, 2)', '\\{1, 2\\}', 'unequal'], ['[1,2] \\cup [3,4]', '[3,4] \\cup [1,2]', 'equal', 'union'], ['x \\neq 2', '2', 'refused'], ['1 < x > 2', '(1,2)', 'refused'],
  ]);
});

t.test('expressions: equal as functions where both are defined', async (t) => {
  run(t, [
    ['(x+1)^2', 'x^2+2x+1', 'equal', 'symbolic'], ['(x+1)^2', 'x^2+x+1', 'unequal'], ['\\frac{x^2-1}{x-1}', 'x+1', 'equal', 'symbolic'], ['2x', 'x+x', 'equal'],
    ['x = 2y', '2y', 'equal'], ['y = 2x', '2x', 'equal'], ['2y', '2x', 'unequal'], ['\\frac{1}{2}x', '\\frac{x}{2}', 'equal'], ['\\sin^2 x + \\cos^2 x', '1', 'equal'],
    ['ab', 'ba', 'equal'], ['x**2 + 1', 'x^{2}+1', 'equal', 'symbolic'], ['sqrt(2)/2', '\\frac{\\sqrt{2}}{2}', 'equal', 'number'], ['\\sqrt{x^2}', 'x', 'unequal'], ['x^{2}-4', '(x-2)(x+2)', 'equal'], ['x^{2}-4', '(x-2)^2', 'unequal'], ['\\frac{3x}{6}', '0.5x', 'equal'],
  ]);
});

t.test('text answers and units: stripped only by the documented rules', async (t) => {
  run(t, [
    ['\\text{Monday}', 'Monday', 'equal', 'text'], ['Monday', 'monday', 'equal', 'text'], ['Monday', 'Mondya', 'unequal'], ['\\text{no solution}', 'No solution', 'equal', 'text'],
    ['5\\text{ cm}', '5', 'equal', 'number'], ['5 \\text{cm}', '5\\text{ cm}', 'equal'], ['5\\text{ cm}', '5\\text{ m}', 'refused'], ['12\\text{ apples}', '12', 'equal'], ['13\\text{ apples}', '12', 'unequal'],
    ['\\boxed{5 apples}', '5', 'equal'], ['\\boxed{12 dollars}', '\\$12', 'equal'], ['\\boxed{12 euros}', '\\$12', 'refused'], ['\\boxed{1,250 people}', '1250', 'equal'], ['\\boxed{5 apples}', '6', 'unequal'],
    ['\\boxed{5 m}', '5', 'unequal'], ['12 dollars', '\\$12', 'equal'],
    ['\\$18', '18', 'equal'], ['\\$18.50', '18.5', 'equal'], ['30^\\circ', '30', 'equal'], ['30^{\\circ}', '45', 'unequal'], ['90°', '90', 'equal'], ['5\\text{ cm} + 1', '6', 'refused'],
  ]);
  const unit = check('5\\text{ cm}', '5');
  t.equal(f(unit).unit, 'cm', 'the stripped unit is named');
  const pct = check('50\\%', '50');
  t.equal(f(pct).percent, 'as_unit', 'which percent reading was proven is named');
  t.equal(f(check('50\\%', '0.5')).percent, 'as_fraction');
});

t.test('final answer extraction from model text, by fixed rules', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['We compute... so the result is \\boxed{\\frac{1}{2}}.', '\\frac{1}{2}', 'boxed'],
    ['First \\boxed{3}, then corrected: \\boxed{4}', '4', 'boxed'],
    ['\\boxed{\\{1, 2\\}}', '\\{1, 2\\}', 'boxed'],
    ['Thus the answer is $\\frac{3}{4}$. Done.', '$\\frac{3}{4}$', 'answer_phrase'],
    ['The final answer is: 7', '7', 'answer_phrase'],
    ['**Answer:** 12', '12', 'answer_phrase'],
    ['so the answer is 3.5.', '3.5', 'answer_phrase'],
    ['x = 5', 'x = 5', 'whole'],
    ['$x^2+1$', '$x^2+1$', 'whole'],
    ['Monday', 'Monday', 'whole'],
    ['There are 3 apples and 12 pears, 15 in total', '15', 'last_number'],
    ['It costs 1,250 dollars', '1,250', 'last_number'],
    ['The temperature fell to -4 degrees', '-4', 'last_number'],
  ];
  for (const [text, answer, source] of cases) t.same(extractAnswer(text, '.'), { text: answer, source }, text);
  t.same(extractAnswer('Es kostet 3,5 Euro', ','), { text: '3,5', source: 'last_number' });
  t.throws(() => extractAnswer('no idea!', '.'), /No final answer/);
  t.same(extractAnswer('I do not know', '.'), { text: 'I do not know', source: 'whole' }, 'one line of words is a text answer');
  t.throws(() => extractAnswer('\\boxed{3', '.'), /never closed/);
  run(t, [
    ['We get $\\frac{1}{2}$ so the answer is \\boxed{0.5}', '\\frac12', 'equal'],
    ['Adding, 3 + 4 = 7. The answer is 7.', '7', 'equal'],
    ['Adding, 3 + 4 = 7. The answer is 8.', '7', 'unequal'],
    ['So there are 1,250 marbles in total', '1250', 'equal'],
    ['The roots are \\boxed{x = 2, x = 3}', '\\{2, 3\\}', 'equal'],
    ['Therefore $x \\in \\boxed{[1, 2)}$', '[1,2)', 'equal'],
    ['I am not sure.', '3', 'unequal'],
    ['no idea!', '3', 'refused'],
  ]);
});

t.test('decimal comma locale, tolerance, and the request rules', async (t) => {
  run(t, [['3,5', '\\frac{7}{2}', 'equal'], ['1.234,5', '1234,5', 'equal'], ['3.5', '3,5', 'refused'], ['\\{1,5; 2\\}', '\\{2; 1,5\\}', 'equal', 'set'], ['3,5', '35', 'unequal']], { context: { decimal_separator: ',' } });
  run(t, [['3,5', '3.5', 'unequal'], ['1,5', '\\{1, 5\\}', 'equal', 'set']]);
  const near = check('\\frac{1}{3}', '0.333', { tolerance: '0.001' });
  t.match(f(near), { is_correct: true, equivalence: 'number', tolerance: '0.001' });
  t.match(f(check('\\frac{1}{3}', '0.3', { tolerance: '0.001' })), { is_correct: false });
  t.equal(f(check('100', '99', { tolerance: '5' })).constraint_id, 'math_verifier.tolerance_exceeded', 'the bound of expected_value holds');
  t.equal(f(check('\\{1\\}', '1', { tolerance: '0.1' })).constraint_id, 'math_verifier.invalid_tolerance');
  t.equal(f(verify({ expression: '1', expected: '1', expected_value: '1' })).constraint_id, 'math_verifier.invalid_request');
  const many = check(`\\{${Array.from({ length: 65 }, (_, i) => i).join(',')}\\}`, '\\{1\\}');
  t.equal(f(many).constraint_id, 'math_verifier.compute_cost_exceeded', 'a set is matched pairwise: its size is bounded');
  t.equal(check(`\\{${Array.from({ length: 64 }, (_, i) => i).join(',')}\\}`, `\\{${Array.from({ length: 64 }, (_, i) => 63 - i).join(',')}\\}`).developer_fields.is_correct, true);
  const a = check('\\frac{1}{2}', '0.5');
  const b = check('\\frac{1}{2}', '\\frac{2}{4}');
  t.not(a.proof_ref, b.proof_ref, 'the proof binds the expected answer');
});
