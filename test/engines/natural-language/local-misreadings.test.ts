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

t.test('number words out of grammar are not read as a sum of their values', async (t) => {
  for (const query of ['is twenty twenty equal to 40', 'is nineteen ninety equal to 109']) {
    const r = await nl(query);
    t.equal(r.status, 200, query);
    t.match(r.body, { status: 'NOT_MATH_QUERY', verification: null, diagnostic: { status: 'BLOCKED' } }, query);
  }
  t.match((await nl('is twenty one equal to 21')).body.verification, { is_correct: true });
});
