import t, { type Test } from 'tap';
import { verify } from '../../../../plugins/engines/math/engine.js';
import { readLatexExpression } from '../../../../plugins/engines/math/latex/index.js';
import { extractAnswer } from '../../../../plugins/engines/math/answer/extract.js';

/**
 * The answer forms a public math grader meets in gold answers (issue 46): unions of intervals,
 * vectors and matrices, repeating decimals, `10,\!000` grouping and choice labels — each with the
 * pairs that must be proven equal, those that must never be VERIFIED equal, and the hostile forms
 * the reader must refuse within its bounds.
 */
type Want = 'equal' | 'unequal' | 'refused';
const d = (o: ReturnType<typeof verify>) => o.developer_fields as Record<string, any>;

function run(t: Test, cases: Array<[string, string, Want, string?]>) {
  for (const [pred, gold, want, form] of cases) {
    const o = verify({ expression: pred, expected: gold });
    const label = `${pred} vs ${gold}: ${o.status} ${d(o).message ?? ''}`;
    t.notOk(want !== 'equal' && o.status === 'VERIFIED' && d(o).is_correct === true, `never VERIFIED equal: ${label}`);
    if (want === 'equal') {
      t.match(o, { status: 'VERIFIED', proof_ref: /^sha256:/ }, label);
      t.equal(d(o).is_correct, true, label);
      if (form) t.equal(d(o).equivalence, form, label);
    } else if (want === 'unequal') t.match(o, { status: 'VERIFIED', developer_fields: { is_correct: false } }, label);
    else {
      t.not(o.status, 'VERIFIED', label);
      t.equal(o.proof_ref, null, label);
    }
  }
}

t.test('unions of intervals: matched interval by interval, never called unequal unproven', async (t) => {
  run(t, [
    ['(-\\infty, 2) \\cup (3, \\infty)', '(3,\\infty)\\cup(-\\infty,2)', 'equal', 'union'], ['(-\\infty,-1]\\cup[1,\\infty)', '(-\\infty, -1] \\cup [1, \\infty)', 'equal', 'union'],
    ['x \\in (-\\infty, 0) \\cup (0, \\infty)', '(-\\infty,0)\\cup(0,\\infty)', 'equal', 'union'], ['\\boxed{(-\\infty, \\frac12) \\cup (1, \\infty)}', '(-\\infty,0.5)\\cup(1,\\infty)', 'equal'],
    ['[1,2]', '[1,2] \\cup [1,2]', 'equal', 'union'], ['\\left(-\\infty, -3\\right) \\cup \\left(3, \\infty\\right)', '(-\\infty,-3)\\cup(3,\\infty)', 'equal'],
    ['(-\\infty, -3) \\cup (-3, 3) \\cup (3, \\infty)', '(3,\\infty) \\cup (-3,3) \\cup (-\\infty,-3)', 'equal', 'union'], ['(0,1) \\cup (2,3)', '(0,1) \\cup (2,4)', 'refused'],
    ['(-\\infty, 2) \\cup (3, \\infty)', '(-\\infty,2)\\cup[3,\\infty)', 'refused'], ['(0,1] \\cup (1,2)', '(0,2)', 'refused'], ['[1,2] \\cup [3,4]', '[1,2]', 'refused'],
    ['(-\\infty, 2) \\cup (3, \\infty)', '(-\\infty,2)', 'refused'], ['(-\\infty, 2) \\cup (3, \\infty)', '2', 'unequal'], ['\\{1\\} \\cup [2,3]', '[2,3]', 'refused'], ['1 \\cup 2', '1', 'refused'],
  ]);
  const union = (n: number) => Array.from({ length: n }, (_, i) => `[${2 * i},${2 * i + 1}]`).join('\\cup');
  t.equal(d(verify({ expression: union(17), expected: '[0,1]' })).constraint_id, 'math_verifier.compute_cost_exceeded', 'a union is matched pairwise: its size is bounded');
  t.equal(d(verify({ expression: union(16), expected: union(16) })).is_correct, true, 'sixteen intervals are read');
});

t.test('vectors and matrices: the same dimensions and equal entries', async (t) => {
  run(t, [
    ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '\\begin{pmatrix}1\\\\2\\end{pmatrix}', 'equal', 'matrix'], ['\\begin{pmatrix} \\frac12 \\\\ -3 \\end{pmatrix}', '\\begin{pmatrix} 0.5 \\\\ -3 \\end{pmatrix}', 'equal', 'matrix'],
    ['\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}', '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', 'equal', 'matrix'], ['\\begin{pmatrix} 2\\sqrt{2} & 0 \\\\ 0 & 1 \\\\ \\end{pmatrix}', '\\begin{pmatrix} \\sqrt8 & 0 \\\\ 0 & 1 \\end{pmatrix}', 'equal'],
    ['The vector is $\\boxed{\\begin{pmatrix} 3 \\\\ -1 \\\\ 2 \\end{pmatrix}}$.', '\\begin{pmatrix} 3 \\\\ -1 \\\\ 2 \\end{pmatrix}', 'equal'], ['\\begin{pmatrix} x \\\\ 2x \\end{pmatrix}', '\\begin{pmatrix} x \\\\ x+x \\end{pmatrix}', 'equal'],
    ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '\\begin{pmatrix} 2 \\\\ 1 \\end{pmatrix}', 'unequal'], ['\\begin{pmatrix} 1 & 2 \\end{pmatrix}', '\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', 'unequal'],
    ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '2', 'unequal'], ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '(1, 2)', 'unequal'], ['\\begin{pmatrix} 1 & 2 \\\\ 3 \\end{pmatrix}', '1', 'refused'],
    ['\\begin{vmatrix} 1 & 2 \\\\ 3 & 4 \\end{vmatrix}', '-2', 'refused'], ['\\begin{pmatrix} 1 \\\\ 2 \\end{bmatrix}', '1', 'refused'], ['\\begin{pmatrix} 1 \\\\ 2', '1', 'refused'],
    ['\\begin{cases} 1 \\end{cases}', '1', 'refused'], ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix} = 3', '3', 'refused'],
  ]);
  const big = `\\begin{pmatrix} ${Array.from({ length: 65 }, (_, i) => i).join(' \\\\ ')} \\end{pmatrix}`;
  t.equal(d(verify({ expression: big, expected: big })).constraint_id, 'math_verifier.compute_cost_exceeded', 'a matrix holds at most 64 entries');
  t.equal(d(verify({ expression: '\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix} + 1 = 2' })).constraint_id, 'math_verifier.disallowed_construct', 'a matrix is an answer, not an expression');
});

t.test('repeating decimals are the exact fractions they denote', async (t) => {
  const read = (s: string, dec: '.' | ',' = '.') => readLatexExpression(s, dec).plain;
  t.equal(read('0.\\overline{3}'), '3/9');
  t.equal(read('0.1\\overline{6}'), '15/90');
  t.equal(read('2.\\overline{142857}'), '2142855/999999');
  t.equal(read('0,\\overline{3}', ','), '3/9');
  t.equal(read('1.\\bar{3} + 1'), '12/9 + 1');
  run(t, [
    ['0.\\overline{3}', '\\frac13', 'equal', 'number'], ['0.\\overline{9}', '1', 'equal'], ['0.1\\overline{6}', '\\frac16', 'equal'], ['0.\\overline{142857}', '\\frac{1}{7}', 'equal'],
    ['1.\\overline{3}', '\\frac{4}{3}', 'equal'], ['0.\\overline{12}', '\\frac{4}{33}', 'equal'], ['0.\\overline{3}', '0.333', 'unequal'], ['0.\\overline{3}', '\\frac{1}{4}', 'unequal'],
    ['-0.\\overline{6}', '-\\frac{2}{3}', 'equal'], ['0.\\overline{}', '0', 'refused'], ['0.\\overline{x}', '0', 'refused'],
  ]);
  t.equal(d(verify({ expression: `0.\\overline{${'3'.repeat(61)}}`, expected: '\\frac13' })).constraint_id, 'math_verifier.parse_error', 'the repeated digits are bounded');
});

t.test("MATH's grouping `10,\\!000`, choice labels, and what graders strip", async (t) => {
  run(t, [
    ['10000', '10,\\!000', 'equal', 'number'], ['1,\\!000,\\!000', '1000000', 'equal'], ['\\$1,\\!250', '1250', 'equal'], ['10,\\!001', '10000', 'unequal'], ['1,\\!00', '100', 'unequal'],
    ['C', '\\text{(C)}', 'equal', 'text'], ['(B)', 'B', 'equal', 'text'], ['\\textbf{(E)}', 'E', 'equal'], ['The answer is (D).', '\\text{(D)}', 'equal'], ['\\text{(A)}', '\\text{(B)}', 'unequal'],
    ['c', '\\text{(C)}', 'unequal'], ['(C', 'C', 'refused'],
  ]);
});

t.test('model text: a unit after the box, the last math span, equations that arrive at a value', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['so the area is \\boxed{15}\\text{ cm}^2.', '15 \\text{ cm}^2', 'boxed'], ['\\boxed{5} apples.', '5 apples', 'boxed'], ['\\boxed{5} is the answer', '5', 'boxed'],
    ['So $m+n = 47$.', 'm+n = 47', 'last_math'], ['Answer \\( (9+1) \\)', '(9+1)', 'last_math'], ['It costs \\$5 and then $x = 3$ here', 'x = 3', 'last_math'],
    ['Code AZ2B was 7 long', '7', 'last_number'],
  ];
  for (const [text, answer, source] of cases) t.same(extractAnswer(text, '.'), { text: answer, source }, text);
  t.throws(() => extractAnswer('Code AZYUK2A!', '.'), /No final answer/, 'a digit inside a word is no number');
  for (const text of ['The roots are 2 and 3', 'It is one of 2, 3', 'either 4 or 5', 'cells 1 & 2']) t.throws(() => extractAnswer(text, '.'), /list of numbers/, `${text}: a list is not its last number`);
  for (const text of ['The probability is \\frac{5}{36}.', 'The probability is 5/36.', 'So it equals x^2', 'We get 2*3']) t.throws(() => extractAnswer(text, '.'), /part of a formula/, `${text}: a number inside a formula is not taken`);
  run(t, [
    ['So $m+n = 47$.', '47', 'equal'], ['$$\\frac{1}{2}\\times 3 \\times 10 = \\boxed{15\\mbox{ cm}^2}.$$', '$15\\mbox{ cm}^2$', 'equal'], ['\\boxed{15}\\text{ cm}^2', '15', 'equal'],
    ['\\boxed{5} \\text{ cm}', '5 \\text{ m}', 'refused'], ['Answer \\( (9+1) \\)', '10', 'equal'], ['AZYUK2A', '2', 'refused'], ['\\frac12 \\cdot 4 = 2', '2', 'equal'], ['2 + 2 = 5', '4', 'unequal'],
    ['\\boxed{x = 2 = y}', '2', 'refused'], ['\\{1\\} = 1', '1', 'refused'], ['\\pm 1', '-1, 1', 'equal', 'set'], ['\\boxed{\\pm\\sqrt{2}}', '\\{\\sqrt2, -\\sqrt2\\}', 'equal'],
    ['\\boxed{1011_2}', '1011_{2}', 'equal', 'text'], ['1011_2', '1011_3', 'unequal'], ['1011_2', '11', 'unequal'], ['\\text{5 hours}', '5', 'equal', 'number'], ['\\text{No}', 'No', 'equal', 'text'],
    ['yes', '\\text{Yes}', 'equal'], ['No', 'Yes', 'unequal'], ['The probability is \\frac{5}{36}.', '36', 'refused'],
    ['x = 5 or x = -5', '\\pm 5', 'equal', 'set'], ['x = 5 or x = -5', '-5', 'unequal'], ['\\boxed{x=2 \\text{ or } x=3}', '2, 3', 'equal', 'set'], ['\\boxed{x=2 \\text{ or } x=3}', '3', 'unequal'],
    ['The roots are 2 and 3', '3', 'refused'], ['\\boxed{2 and 3}', '2, 3', 'refused'], ['(1 or 2)', '1', 'refused'],
    ['\\mathbb{R}', '(-\\infty,\\infty)', 'equal', 'interval'], ['x \\in \\mathbb R', '(-\\infty, \\infty)', 'equal'], ['\\mathbb{R}', '[0,\\infty)', 'unequal'], ['\\mathbb{Z}', '1', 'refused'],
    ['(x, y) = (3, 4)', '(3,4)', 'equal', 'tuple'], ['(x, y) = (3, 4)', '(4,3)', 'unequal'], ['(x, 2) = (3, 4)', '(3,4)', 'refused'],
    ['x \\le -1 \\text{ or } x \\ge 1', '(-\\infty, -1] \\cup [1, \\infty)', 'equal', 'union'], ['x < 0 or x > 2', '(2,\\infty) \\cup (-\\infty,0)', 'equal', 'union'],
    ['x < 0, x > 2', '(-\\infty,0) \\cup (2,\\infty)', 'refused'], ['x < 0 or x = 2', '(-\\infty,0)', 'refused'],
    ['\\$5', '5\\%', 'refused'], ['5\\text{ cm}', '5\\%', 'refused'], ['28 percent', '28\\%', 'equal', 'number'], ['28 percent', '0.28', 'equal'], ['28 pct', '0.29', 'unequal'],
    ['25^\\circ\\text{C}', '25', 'equal', 'number'], ['25^\\circ C', '25^{\\circ}\\mathrm{C}', 'equal'], ['25^\\circ C', '25^\\circ F', 'refused'], ['25^\\circ C', '26', 'unequal'],
    ['\\pm 1', '1', 'unequal'], ['1, 1, 2', '1, 2, 2', 'unequal'], ['1, 1, 2', '2, 1, 1', 'equal', 'set'], ['1, 2', '\\{2, 1\\}', 'equal', 'set'], ['2, 2', '\\{2\\}', 'unequal'], ['\\{2, 2\\}', '\\{2\\}', 'equal', 'set'], ['\\frac{\\pi}{4}', '45^\\circ', 'equal', 'number'], ['180^\\circ', '\\pi', 'equal'], ['45^\\circ', '45', 'equal'], ['\\frac{\\pi}{4}', '46^\\circ', 'unequal'], ['45^\\circ', '46^\\circ', 'unequal'],
  ]);
  t.equal(d(verify({ expression: '\\frac{\\pi}{4}', expected: '45^\\circ' })).degrees, 'as_radians', 'which degree reading was proven is named');
  t.equal(d(verify({ expression: '45', expected: '45^\\circ' })).degrees, 'as_number');
});

t.test('equations as answers: a line in expected is never read as its right side', async (t) => {
  run(t, [
    ['6', '2x-3y=6', 'unequal'], ['2x-3y=6', '2x - 3y = 6', 'equal', 'equation'], ['6 = 2x-3y', '2x-3y=6', 'equal', 'equation'], ['2x-3y-6=0', '2x-3y=6', 'equal', 'equation'],
    ['x^2+y^2=25', 'y^2+x^2=25', 'equal', 'equation'], ['4x-6y=12', '2x-3y=6', 'refused'], ['2x-3y=7', '2x-3y=6', 'refused'], ['So $m+n=47$.', '47', 'equal', 'number'],
    ['y = 2x+1', 'y=1+2x', 'equal', 'symbolic'], ['2x-3y=6', '6', 'equal', 'number'], ['2x-3y=6', '7', 'unequal'],
  ]);
});

t.test('logarithms to a rational base are exact where the power is', async (t) => {
  run(t, [
    ['\\log_2 8', '3', 'equal', 'number'], ['\\log_4 2', '\\frac12', 'equal'], ['\\log_{\\frac12} 8', '-3', 'equal'], ['\\log_3 \\frac{1}{27}', '-3', 'equal'], ['\\log_{8} 4', '\\frac23', 'equal'],
    ['\\log_{2} 1', '0', 'equal'], ['\\log_2 10', '3', 'unequal'], ['\\log_{8} 4', '\\frac34', 'unequal'], ['\\log_2 3', '1.58496', 'unequal'],
  ]);
  t.match(verify({ expression: '\\log_2 8 = 3' }), { status: 'VERIFIED', developer_fields: { is_valid: true } });
  run(t, [
    ['2\\sqrt{5}', '\\sqrt{20}', 'equal', 'number'], ['\\frac{\\sqrt{15}}{3}', '\\sqrt{\\frac{5}{3}}', 'equal'], ['3\\sqrt{7}', '\\sqrt{63}', 'equal'], ['\\frac{5}{\\sqrt{5}}', '\\sqrt5', 'equal'],
    ['2\\sqrt[3]{2}', '\\sqrt[3]{16}', 'equal'], ['\\frac{\\sqrt{10}}{2}', '\\sqrt{\\frac{5}{2}}', 'equal'], ['4^{1/6}', '\\sqrt[3]{2}', 'equal'], ['5^{-1/2}', '\\frac{\\sqrt5}{5}', 'equal'],
    ['\\sqrt{20}', '3\\sqrt5', 'unequal'], ['\\sqrt{\\frac{5}{3}}', '\\frac{\\sqrt{15}}{5}', 'unequal'], ['2\\sqrt[3]{2}', '\\sqrt[3]{8}', 'unequal'],
  ]);
  run(t, [['\\sqrt[3]{2}', '2^{1/3}', 'equal', 'number'], ['2\\sqrt[3]{2} + \\sqrt[3]{2}', '3 \\cdot 2^{1/3}', 'equal'], ['\\sqrt[3]{2}', '1.26', 'unequal'], ['\\sqrt[3]{2}', '\\sqrt[3]{3}', 'unequal']]);
  t.match(verify({ expression: 'cbrt(2) = 2^(1/3)' }), { status: 'VERIFIED', developer_fields: { is_valid: true } }, 'like roots are one atom of the identity check');
  t.match(verify({ expression: '(-8)^(1/3) = -2' }), { status: 'VERIFIED', developer_fields: { is_valid: false } }, 'the principal root of -8 is not the real one');
  t.match(verify({ expression: 'ln(8)/ln(2) = 3' }), { status: 'VERIFIED', developer_fields: { is_valid: true } }, 'the plain syntax gets the same proof');
  t.match(verify({ expression: '\\log_2(-8) = 3' }), { status: 'VERIFIED', developer_fields: { is_valid: false } }, 'a negative argument is no power of the base');
  t.equal(d(verify({ expression: `\\log_2 ${'9'.repeat(2000)} = 3` })).is_valid, false, 'a huge argument stays within the bit bound');
});

t.test('hostile LaTeX: macros, unbalanced input, depth and size are refused within bounds', async (t) => {
  const refusals: Array<[string, string]> = [
    ['\\def\\x{2} \\x = 2', 'disallowed_construct'], ['\\newcommand{\\x}{2} 2 = 2', 'disallowed_construct'], ['\\renewcommand\\frac{1} 1 = 1', 'disallowed_construct'],
    ['\\input{/etc/passwd}', 'disallowed_construct'], ['\\catcode`\\{=12 1=1', 'disallowed_construct'], ['\\let\\a\\b 1 = 1', 'disallowed_construct'],
    ['\\frac{1}{2}} = 0.5', 'parse_error'], ['{\\frac{1}{2} = 0.5', 'parse_error'], ['\\left( 1 \\right', 'parse_error'], ['\\sqrt[3{8} = 2', 'parse_error'],
    [`${'{'.repeat(200)}1${'}'.repeat(200)} = 1`, 'depth_exceeded'], [`${'\\sqrt{'.repeat(100)}2${'}'.repeat(100)} = 1`, 'depth_exceeded'],
    [`${'\\left('.repeat(100)}1${'\\right)'.repeat(100)} = 1`, 'depth_exceeded'], [`${'('.repeat(5000)}`, 'depth_exceeded'],
    [`\\frac{1}{2} + ${'1+'.repeat(20_000)}1`, 'input_too_long'],
  ];
  for (const [expression, id] of refusals) {
    const o = verify({ expression });
    t.match(o, { status: 'BLOCKED', proof_ref: null }, expression.slice(0, 60));
    t.equal(d(o).constraint_id, `math_verifier.${id}`, `${expression.slice(0, 60)}: ${d(o).message}`);
  }
  const huge = verify({ expression: `\\boxed{${'9'.repeat(30_000)}}`, expected: '1' });
  t.match(huge, { status: 'BLOCKED', proof_ref: null }, 'a huge answer is refused by its size');
});
