import t from 'tap';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';

/**
 * Over HTTP with the default (local) translator: questions it used to misread. "is 3² equal to 32"
 * was translated to "32 = 32" and answered yes, with an attestation of the inner proof; now the
 * exponent is read, or a sentence the rules cannot read faithfully is NOT_MATH_QUERY.
 */
const s = await startServer({
  plugins: [testAuthPlugin(), ...builtinsWithEngines('natural-language', 'math', 'consensus').filter((p) => p.name !== 'auth' && p.name !== 'agents')],
});
t.teardown(() => s.close());
await untilReady(s.kernel);
const nl = (query: string) => s.request('POST', '/verify/natural_language', { body: { query }, apiKey: TEST_API_KEY });

t.test('a superscript is an exponent: 3² is 9, not 32', async (t) => {
  const wrong = await nl('is 3² equal to 32');
  t.equal(wrong.status, 200);
  t.match(wrong.body, {
    status: 'INCONCLUSIVE',
    translation: { expression: '3 ^ 2', claimed_answer: 32 },
    verification: { calculated_value_exact: '9', is_correct: false, inner_status: 'CORRECTION_NEEDED' },
    diagnostic: { status: 'UNVERIFIABLE', developer_fields: { is_valid: false } },
  });
  const right = await nl('is 3² equal to 9');
  t.match(right.body.verification, { is_correct: true, inner_status: 'VERIFIED' });

  const c = await s.request('POST', '/verify/consensus', { body: { query: 'is 3² equal to 32' }, apiKey: TEST_API_KEY });
  t.equal(c.status, 200);
  t.match(c.body, { status: 'UNVERIFIABLE', final_answer: 'false' }, 'consensus checks the same reading');
});

t.test('number words out of grammar are not read as a sum of their values', async (t) => {
  for (const query of ['is twenty twenty equal to 40', 'is nineteen ninety equal to 109']) {
    const r = await nl(query);
    t.equal(r.status, 200, query);
    t.match(r.body, { status: 'NOT_MATH_QUERY', verification: null, diagnostic: { status: 'BLOCKED' } }, query);
  }
  t.match((await nl('is twenty one equal to 21')).body.verification, { is_correct: true });
});

t.test('"the difference between 3 and 10" is 7', async (t) => {
  const r = await nl('is the difference between 3 and 10 equal to 7');
  t.match(r.body, { status: 'INCONCLUSIVE', translation: { expression: '10 - 3' }, verification: { is_correct: true } });
});

t.test('a word operator followed by an operator, and a percentage added to a number, are refused', async (t) => {
  for (const query of ['is the square root of 16 plus 9 equal to 13', 'is the product of 2 and 3 plus 4 equal to 14', 'is 100 plus 10% equal to 100.1']) {
    const r = await nl(query);
    t.equal(r.status, 200, query);
    t.match(r.body, { status: 'NOT_MATH_QUERY', verification: null }, query);
  }
  const grouped = await nl('is the square root of (16 plus 9) equal to 5');
  t.match(grouped.body, { translation: { expression: 'sqrt(16 + 9)' }, verification: { is_correct: true } });
});

t.test('a comma that groups words is not skipped', async (t) => {
  const r = await nl('is 2 plus 3, times 4, equal to 20');
  t.equal(r.status, 200);
  t.match(r.body, { status: 'NOT_MATH_QUERY', verification: null });
});

t.test('an exponent in words followed by an operator is refused', async (t) => {
  const r = await nl('is 2 raised to 3 plus 1 equal to 16');
  t.equal(r.status, 200);
  t.match(r.body, { status: 'NOT_MATH_QUERY', verification: null });
});

t.test('a repeating decimal is not checked as its shown digits', async (t) => {
  const r = await nl('is 1/3 equal to 0.333...');
  t.equal(r.status, 200);
  t.match(r.body, { status: 'NOT_MATH_QUERY', verification: null });
});
