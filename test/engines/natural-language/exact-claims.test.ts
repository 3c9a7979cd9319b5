import t from 'tap';
import { parseOutput } from '../../../plugins/providers/output.js';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';
import { startFakeLlm } from '../../helpers/fake-llm.js';

/**
 * A model's claimed answer written as a JSON number is the model's claim as written. Read through a
 * double, `0.30000000000000001` became 0.3 and `9007199254740993` became …992, so the math engine
 * checked another claim than the model made: "0.1 + 0.2 = 0.30000000000000001" held, with an
 * attestation issued for it, and consensus answered "true" to it.
 */
const reply = (claimed: string) =>
  'Here is the translation:\n```json\n' + `{"is_math": true, "expression": "0.1 + 0.2", "claimed_answer": ${claimed}, "reasoning": "sum", "confidence": 0.9}` + '\n```';

t.test('parseOutput keeps a JSON number as the model wrote it', async (t) => {
  t.equal(parseOutput('math', reply('0.30000000000000001'), 'openai').claimed_answer_exact, '0.30000000000000001');
  t.equal(parseOutput('math', reply('9007199254740993'), 'openai').claimed_answer_exact, '9007199254740993');
  t.equal(parseOutput('math', reply('1e400'), 'openai').claimed_answer_exact, '1e400', 'not dropped as Infinity');
  t.equal(parseOutput('math', reply('0.3'), 'openai').claimed_answer_exact, '0.3');
  t.equal(parseOutput('math', reply('"0.30"'), 'openai').claimed_answer_exact, '0.30', 'a string stays as given');
  t.equal(parseOutput('math', '{"expression": "1+1", "claimed_answer": null, "reasoning": "", "confidence": 1}', 'openai').claimed_answer_exact, null);
});

t.test('over HTTP: the claim the model made is the claim checked', async (t) => {
  let next = '';
  const llm = await startFakeLlm('openai', () => ({ content: next }));
  t.teardown(() => llm.close());
  const s = await startServer({
    plugins: [testAuthPlugin(), ...builtinsWithEngines('natural-language', 'math', 'consensus').filter((p) => p.name !== 'auth' && p.name !== 'agents')],
    config: { llm: { openai_base_url: llm.url, openai_model: 'fake-gpt', openai_api_key: 'sk-fake', timeout_ms: 5000 } } as never,
  });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const post = (path: string, body: unknown) => s.request('POST', path, { body, apiKey: TEST_API_KEY });

  next = reply('0.30000000000000001');
  const nl = await post('/verify/natural_language', { query: 'Is 0.1 + 0.2 equal to 0.30000000000000001?', provider: 'openai' });
  t.equal(nl.status, 200);
  t.equal(nl.body.status, 'INCONCLUSIVE');
  t.equal(nl.body.verification.is_correct, false, '0.1 + 0.2 is 0.3, not 0.30000000000000001');
  t.equal(nl.body.verification.inner_status, 'CORRECTION_NEEDED');
  t.equal(nl.body.trust_boundary.translation_claim_self_consistent, false);
  t.equal(nl.body.diagnostic.developer_fields.is_valid, false);

  next = reply('0.3');
  const ok = await post('/verify/natural_language', { query: 'Is 0.1 + 0.2 equal to 0.3?', provider: 'openai' });
  t.equal(ok.body.verification.is_correct, true, 'the same flow still confirms a claim that holds');

  next = reply('0.30000000000000001');
  const c = await post('/verify/consensus', { query: 'Is 0.1 + 0.2 equal to 0.30000000000000001?', provider: 'openai', verification_mode: 'single' });
  t.equal(c.status, 200);
  t.equal(c.body.final_answer, 'false');
  t.equal(c.body.status, 'UNVERIFIABLE');
  t.equal(c.body.developer_fields.translated_query, '0.1 + 0.2 = 0.30000000000000001');
});
