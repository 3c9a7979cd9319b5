import t from 'tap';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';
import { mathJson, startFakeLlm } from '../../helpers/fake-llm.js';

/**
 * A translation holding '=' is an equation, not an expression to evaluate, and is refused as
 * translation_invalid. The math engine reads the NFKC form, where '＝' and '﹦' are '=': the check
 * has to see the same form, or a model's "2+2＝4" reached the engine as the equation it is.
 */
let next = '';
const llm = await startFakeLlm('openai', () => ({ content: next }));
t.teardown(() => llm.close());
const s = await startServer({
  plugins: [testAuthPlugin(), ...builtinsWithEngines('natural-language', 'math').filter((p) => p.name !== 'auth' && p.name !== 'agents')],
  config: { llm: { openai_base_url: llm.url, openai_model: 'fake-gpt', openai_api_key: 'sk-fake', timeout_ms: 5000 } } as never,
});
t.teardown(() => s.close());
await untilReady(s.kernel);

t.test('an equals sign in any compatibility form makes the translation an equation', async (t) => {
  for (const expression of ['2+2=4', '2+2＝4', '2+2﹦5']) {
    next = mathJson(expression, null);
    const r = await s.request('POST', '/verify/natural_language', { body: { query: 'is two and two four', provider: 'openai' }, apiKey: TEST_API_KEY });
    t.equal(r.status, 422, expression);
    t.match(r.body, { status: 'ERROR', error: /equation/, diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'nl_verifier.translation_invalid' } } }, expression);
  }
});
