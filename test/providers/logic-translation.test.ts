import t from 'tap';
import providers from '../../plugins/providers/index.js';
import logic from '../../plugins/engines/logic/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import { startFakeLlm, type Behaviour } from '../helpers/fake-llm.js';

// the logic engine reaches the translator only through the `llm.translator` service
const queue: Behaviour[] = [];
const openai = await startFakeLlm('openai', () => queue.shift() ?? { status: 599 });
t.teardown(() => openai.close());
const s = await startServer({
  plugins: [testAuthPlugin(), providers, logic],
  config: { llm: { openai_base_url: openai.url, openai_model: 'fake-gpt', timeout_ms: 300 } } as never,
});
t.teardown(() => s.close());
for (let i = 0; i < 1200 && !s.kernel.isReady(); i++) await new Promise((r) => setTimeout(r, 100));
const post = (body: unknown) => s.request('POST', '/verify/logic', { body, apiKey: TEST_API_KEY });

t.test('natural-language logic through the OpenAI-compatible provider is solved but not proven', async (t) => {
  queue.push({ content: JSON.stringify({ expression: '(AND (GT x 5) (LT x 7))' }) });
  const r = await post({ query: 'x is greater than 5 and less than 7', provider: 'openai' });
  t.equal(r.status, 200);
  t.match(r.body, {
    status: 'SAT',
    model: { x: '6' },
    provider_used: 'openai',
    translation: { expression: '(AND (GT x 5) (LT x 7))', provider: 'openai' },
    diagnostic: { status: 'UNVERIFIABLE', proof_ref: null },
  });
  t.match(openai.requests.at(-1)!.body.messages[0].content, /prefix logic DSL/);
});

t.test('a model emitting a forbidden operator is still blocked by the logic parser', async (t) => {
  queue.push({ content: JSON.stringify({ expression: '(AND (GT x 5) (EXEC x))' }) });
  const r = await post({ query: 'run x', provider: 'openai' });
  t.equal(r.status, 403);
  t.match(r.body, { status: 'BLOCKED' });
});

t.test('the local translator does not do logic; provider failures are the logic engine’s 503', async (t) => {
  const local = await post({ query: 'x is greater than 5' });
  t.equal(local.status, 503);
  t.match(local.body, { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'logic_verifier.translation_failed' } } });
  queue.push({ content: 'not json' });
  const bad = await post({ query: 'x is greater than 5', provider: 'openai' });
  t.equal(bad.status, 503);
});
