import t from 'tap';
import providers from '../../plugins/providers/index.js';
import logic from '../../plugins/engines/logic/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../helpers/server.js';
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
await untilReady(s.kernel);
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

t.test('the local translator reads simple comparisons: the default configuration answers without a network', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['x is greater than 5 and less than 3', '(AND (GT x 5) (LT x 3))', 'UNSAT'],
    ['y is at least 2', '(GTE y 2)', 'SAT'],
    ['a equals b plus 1', '(EQ a (PLUS b 1))', 'SAT'],
    ['Is it possible that x is between 1 and 10 and x times 2 equals 14?', '(AND (AND (GTE x 1) (LTE x 10)) (EQ (MULT x 2) 14))', 'SAT'],
  ];
  const before = openai.requests.length;
  for (const [query, dsl, status] of cases) {
    const r = await post({ query });
    t.equal(r.status, 200, query);
    t.match(r.body, { status, provider_used: 'local', translation: { expression: dsl, provider: 'local' }, diagnostic: { status: 'UNVERIFIABLE', proof_ref: null } }, query);
  }
  const fourteen = await post({ query: 'x is between 1 and 10 and x times 2 equals 14' });
  t.same(fourteen.body.model, { x: '7' });
  t.equal(openai.requests.length, before, 'no request left the process');
});

t.test('outside the local grammar: 400 translation_invalid (problem+json) saying why; provider failures are 503', async (t) => {
  const local = await post({ query: 'the weather is nice today' });
  t.equal(local.status, 400);
  t.match(local.headers.get('content-type'), /^application\/problem\+json/);
  t.match(local.body, { code: 'logic_translation_invalid', constraint_id: 'logic_verifier.translation_invalid', provider_used: 'local', error: /cannot read/, diagnostic: { developer_fields: { constraint_id: 'logic_verifier.translation_invalid' } } });
  const noVar = await post({ query: '5 is greater than 3' });
  t.equal(noVar.status, 400);
  queue.push({ content: 'not json' });
  const bad = await post({ query: 'x is greater than 5', provider: 'openai' });
  t.equal(bad.status, 503);
});

t.test('the local translator does not misread number words, superscripts or reversed "between" bounds', async (t) => {
  // "twenty" and "five" were free variables: SAT, where the sentence is unsatisfiable
  const words = await post({ query: 'x is greater than twenty and x is less than five' });
  t.equal(words.status, 400);
  t.match(words.body, { code: 'logic_translation_invalid', error: /digits/ });
  const squared = await post({ query: 'x² is 4' });
  t.equal(squared.status, 400, 'not the name x2');
  // "between 5 and 1" was x ≥ 5 ∧ x ≤ 1: UNSAT
  const between = await post({ query: 'x is between 5 and 1' });
  t.equal(between.status, 200);
  t.match(between.body, { status: 'SAT', translation: { expression: '(AND (GTE x 1) (LTE x 5))' } });
});

t.test('"x is positive" is refused, not solved with a variable named positive', async (t) => {
  const r = await post({ query: 'x is positive and x is less than 0' });
  t.equal(r.status, 400);
  t.match(r.body, { code: 'logic_translation_invalid', error: /property/ });
});
