import t from 'tap';
import mathPlugin from '../../../plugins/engines/math/index.js';
import consensusPlugin from '../../../plugins/engines/consensus/index.js';
import { candidates } from '../../../plugins/engines/consensus/select.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';

/**
 * Issue 46 over HTTP: LaTeX as models write it at POST /verify/math (claims, answers against
 * `expected`, the request rules), and through the consensus route, which offers it to the math
 * engine alone.
 */
const s = await startServer({ plugins: [testAuthPlugin(), mathPlugin, consensusPlugin], config: { workers: { threads: 1, task_timeout_ms: 120_000 } } });
t.teardown(() => s.close());
await untilReady(s.kernel);
const math = (body: Record<string, unknown>) => s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body });

t.test('LaTeX claims: proven, refuted, refused', async (t) => {
  const holds = [
    '\\frac{1}{2} = 0.5', '\\sqrt{8} = 2\\sqrt{2}', '\\dfrac{3}{4}=0.75', '$\\tfrac{1}{3} + \\tfrac{1}{6} = \\frac{1}{2}$', '\\sqrt[3]{27} = 3',
    '3 \\cdot 4 = 12', '3 \\times 4 \\div 6 = 2', '\\left(\\frac{1}{2}\\right)^{2} = 0.25', '\\pi \\neq 3.14', '\\sqrt{2} \\le 1.415', '50\\% \\cdot 30 = 15',
    '1{,}000 \\cdot 3 = 3000', '2\\frac{1}{4} = \\frac{9}{4}', '\\sin^2 x + \\cos^2 x = 1', '(a+b)^{2} = a^{2} + 2ab + b^{2}', 'x_{1} \\cdot x_{2} = x_2 x_1',
  ];
  for (const expression of holds) {
    const r = await math({ expression });
    t.equal(r.status, 200, expression);
    t.match(r.body, { status: 'VERIFIED', is_valid: true, developer_fields: { is_valid: true, read_as: String } }, expression);
    t.match(r.body.proof_ref, /^sha256:/, expression);
  }
  const refuted = ['\\frac{1}{2} = 0.6', '\\sqrt{8} = 3\\sqrt{2}', '\\pi \\le 3.14', '\\frac{1}{2} \\neq 0.5', '2\\frac{1}{4} = \\frac{1}{2}', '(a+b)^{2} = a^{2} + b^{2}'];
  for (const expression of refuted) {
    const r = await math({ expression });
    t.match(r.body, { status: 'VERIFIED', is_valid: false }, expression);
  }
  const refused: Array<[string, string]> = [
    ['\\log 100 = 2', 'math_verifier.parse_error'], ['5\\text{ cm} = 5', 'math_verifier.disallowed_construct'], ['x \\in [1,2]', 'math_verifier.disallowed_construct'],
    ['\\int_0^1 x\\,dx', 'math_verifier.disallowed_construct'], ['$2^10 = 1024$', 'math_verifier.parse_error'], ['1/2x', 'math_verifier.ambiguous_implicit_multiplication'],
  ];
  for (const [expression, id] of refused) {
    const r = await math({ expression });
    t.equal(r.status, 200, expression);
    t.match(r.body, { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: id } }, expression);
  }
  const comma = await math({ expression: '3{,}5 + 1{,}5 = 5', context: { decimal_separator: ',' } });
  t.match(comma.body, { status: 'VERIFIED', is_valid: true });
});

t.test('answer equivalence through expected', async (t) => {
  const equal: Array<[string, string, string]> = [
    ['The answer is $\\boxed{\\frac{1}{2}}$.', '0.5', 'number'], ['x \\in [1, 2)', '[1,2)', 'interval'], ['\\{3, 1, 2\\}', '\\{1,2,3\\}', 'set'], ['(1, -2)', '(1,-2)', 'tuple'],
    ['\\frac{x^2-1}{x-1}', 'x+1', 'symbolic'], ['So 1,250 people came.', '1250', 'number'], ['\\text{Monday}', 'Monday', 'text'], ['x \\geq 3', '[3, \\infty)', 'interval'],
  ];
  for (const [expression, expected, form] of equal) {
    const r = await math({ expression, expected });
    t.match(r.body, { status: 'VERIFIED', is_valid: true, is_correct: true, equivalence: form }, `${expression} vs ${expected}`);
    t.match(r.body.proof_ref, /^sha256:/);
  }
  const unequal: Array<[string, string]> = [['\\boxed{0.333}', '\\frac13'], ['[1,2]', '[1,2)'], ['\\{1,2\\}', '\\{1,2,3\\}'], ['(2,1)', '(1,2)'], ['x^2+1', '(x+1)^2'], ['The answer is 7.', '8']];
  for (const [expression, expected] of unequal) {
    const r = await math({ expression, expected });
    t.match(r.body, { status: 'VERIFIED', is_correct: false, equivalence: null }, `${expression} vs ${expected}`);
  }
  const units = await math({ expression: '5\\text{ m}', expected: '5\\text{ cm}' });
  t.match(units.body, { status: 'UNVERIFIABLE', proof_ref: null, is_correct: false });
  const tol = await math({ expression: '\\frac{1}{3}', expected: '0.333', tolerance: '0.001' });
  t.match(tol.body, { status: 'VERIFIED', is_correct: true, tolerance: '0.001' });
  const exactTol = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, headers: { 'content-type': 'application/json' }, raw: '{"expression":"\\\\frac{1}{3}","expected":"0.333","tolerance":1e-999}' });
  t.match(exactTol.body, { status: 'VERIFIED', is_correct: false, tolerance: '1e-999' }, 'a JSON-number tolerance is read as written here too');
});

t.test('the answer forms of gold answers, and hostile LaTeX, over HTTP', async (t) => {
  const equal: Array<[string, string, string]> = [
    ['$\\boxed{(-\\infty, 2) \\cup (3, \\infty)}$', '(3,\\infty)\\cup(-\\infty,2)', 'union'], ['\\begin{pmatrix} \\frac12 \\\\ -3 \\end{pmatrix}', '\\begin{pmatrix}0.5\\\\-3\\end{pmatrix}', 'matrix'],
    ['0.\\overline{3}', '\\frac13', 'number'], ['The total is \\boxed{10,\\!000}.', '10000', 'number'], ['The answer is (C).', '\\text{(C)}', 'text'],
  ];
  for (const [expression, expected, form] of equal) {
    const r = await math({ expression, expected });
    t.match(r.body, { status: 'VERIFIED', is_correct: true, equivalence: form, developer_fields: { equivalence: form } }, `${expression} vs ${expected}`);
  }
  const notEqual: Array<[string, string, string]> = [
    ['(0,1] \\cup (1,2)', '(0,2)', 'BLOCKED'], ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '\\begin{pmatrix} 2 \\\\ 1 \\end{pmatrix}', 'VERIFIED'], ['0.\\overline{3}', '0.333', 'VERIFIED'], ['\\text{(A)}', 'B', 'VERIFIED'],
  ];
  for (const [expression, expected, status] of notEqual) {
    const r = await math({ expression, expected });
    t.match(r.body, { status }, `${expression} vs ${expected}`);
    t.not(r.body.is_correct, true, `never correct: ${expression} vs ${expected}`);
  }
  for (const expression of ['\\def\\x{2} \\x = 2', '\\newcommand{\\one}{1} \\one = 1', `${'{'.repeat(300)}1${'}'.repeat(300)} = 1`, '\\frac{1}{2}} = 0.5']) {
    const r = await math({ expression });
    t.equal(r.status, 200, expression.slice(0, 40));
    t.match(r.body, { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: /^math_verifier\.(disallowed_construct|depth_exceeded|parse_error)$/ } }, expression.slice(0, 40));
  }
  const huge = await math({ expression: `\\frac{1}{2}${'+1'.repeat(40_000)}` });
  t.equal(huge.status, 413, 'a body past the route limit is refused before the engine');
});

t.test('request rules: 400 problem+json', async (t) => {
  const bad: Array<Record<string, unknown>> = [
    { expression: '1', expected: '1', expected_value: '1' },
    { expression: '1', expected: '' },
    { expression: '1', expected: 1 },
    { expression: '1', context: { decimal_separator: ';' } },
    { expression: '1', tolerance: '0.1' },
  ];
  for (const body of bad) {
    const r = await math(body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.headers.get('content-type'), /^application\/problem\+json/);
    t.equal(r.body.code, 'validation_failed', JSON.stringify(body));
  }
});

t.test('consensus offers LaTeX to the math engine alone', async (t) => {
  t.match(candidates('\\frac{1}{2} = 0.5'), { kind: 'arithmetic', engines: [{ engine: 'math' }] });
  t.equal(candidates('\\frac{1}{2} = 0.5').engines.length, 1);
  t.equal(candidates('is \\frac{1}{2} equal to 0.5').kind, 'unsupported', 'a sentence goes to a translator');
  t.equal(candidates('\\frac{1}{2} = 0.5 = 1/2').kind, 'unsupported');
  const r = await s.request('POST', '/verify/consensus', { apiKey: TEST_API_KEY, body: { query: '\\frac{1}{2} + \\frac{1}{4} = 0.75' } });
  t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
  t.match(r.body, { engines_used: 1, verification_chain: [{ engine: 'math' }] });
});
