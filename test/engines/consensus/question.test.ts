import t from 'tap';
import providers from '../../../plugins/providers/index.js';
import consensusPlugin from '../../../plugins/engines/consensus/index.js';
import mathPlugin from '../../../plugins/engines/math/index.js';
import logicPlugin from '../../../plugins/engines/logic/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';
import { startFakeLlm, type Behaviour } from '../../helpers/fake-llm.js';

// Questions in words: translated first (an untrusted chain step), then checked by the engines.

const queue: Record<'openai' | 'anthropic', Behaviour[]> = { openai: [], anthropic: [] };
const openai = await startFakeLlm('openai', () => queue.openai.shift() ?? { status: 599 });
const anthropic = await startFakeLlm('anthropic', () => queue.anthropic.shift() ?? { status: 599 });
t.teardown(() => Promise.all([openai.close(), anthropic.close()]));
const s = await startServer({
  plugins: [testAuthPlugin(), providers, mathPlugin, logicPlugin, consensusPlugin],
  config: {
    workers: { threads: 1, task_timeout_ms: 120_000 },
    llm: {
      timeout_ms: 2000,
      openai_base_url: openai.url, openai_model: 'fake-gpt',
      anthropic_base_url: anthropic.url, anthropic_model: 'fake-claude', anthropic_api_key: 'sk-ant-fake',
    },
  } as never,
});
t.teardown(() => s.close());
await untilReady(s.kernel);
const post = (body: unknown) => s.request('POST', '/verify/consensus', { body, apiKey: TEST_API_KEY });

t.test('local translator: "What is 12 * 12?" is answered by engines that prove the value', async (t) => {
  const single = await post({ query: 'What is 12 * 12?' });
  t.equal(single.status, 200, JSON.stringify(single.body).slice(0, 400));
  t.match(single.body, { final_answer: '144', confidence: 100, meets_requirement: true, engines_used: 1, status: 'UNVERIFIABLE', proof_ref: null });
  t.match(single.body.verification_chain[0], { engine: 'translator', method: 'llm_translation:local', result: '12 * 12', success: false, confidence: 0, untrusted: true, proof_ref: null });
  t.match(single.body.verification_chain[1], { engine: 'math', success: true, status: 'VERIFIED' });
  t.match(single.body.developer_fields, { translated_query: '12 * 12 = 144', proposed_value: '144', query_semantics_verified: false, inner_verdict: { status: 'VERIFIED' } });

  const max = await post({ query: 'What is 12 * 12?', verification_mode: 'maximum' });
  t.equal(max.status, 200);
  t.match(max.body, { final_answer: '144', confidence: 100, engines_used: 3, agreement_status: 'unanimous', meets_requirement: true });
  t.same(max.body.verification_chain.map((e: { engine: string }) => e.engine), ['translator', 'math', 'logic', 'rational']);
});

t.test('local translator: a stated answer is the claim the engines check', async (t) => {
  const wrong = await post({ query: 'Is 12 times 12 equal to 145?', verification_mode: 'maximum' });
  t.equal(wrong.status, 200);
  t.match(wrong.body, { final_answer: 'false', engines_used: 3, agreement_status: 'unanimous', status: 'UNVERIFIABLE' });
  t.equal(wrong.body.developer_fields.translated_query, '12 * 12 = 145');
});

t.test('local translator: constraints in words go to the logic engine', async (t) => {
  const r = await post({ query: 'x is greater than 5 and less than 3' });
  t.equal(r.status, 200);
  t.match(r.body, { final_answer: 'false', engines_used: 1, status: 'UNVERIFIABLE' });
  t.match(r.body.verification_chain[0], { engine: 'translator', result: '(AND (GT x 5) (LT x 3))', untrusted: true });
  const high = await post({ query: 'x is greater than 5 and less than 3', verification_mode: 'high' });
  t.equal(high.status, 422, 'a DSL formula has one engine');
  t.equal(high.body.code, 'consensus_insufficient_engines');
});

t.test('OpenAI-compatible and Anthropic replies, as real models write them', async (t) => {
  queue.openai.push({ content: 'Sure: {"expression": "17 * 3", "claimed_answer": null, "reasoning": "r", "confidence": "0.9"}' });
  const o = await post({ query: 'What is seventeen times three?', provider: 'openai', verification_mode: 'high' });
  t.equal(o.status, 200, JSON.stringify(o.body).slice(0, 400));
  t.match(o.body, { final_answer: '51', engines_used: 2, meets_requirement: true });
  t.match(o.body.verification_chain[0], { method: 'llm_translation:openai', result: '17 * 3', untrusted: true });

  queue.anthropic.push({ content: '```json\n{"expression": "17 * 3", "claimed_answer": "51", "reasoning": "r", "confidence": 0.8}\n```' });
  const a = await post({ query: 'Is seventeen times three fifty-one?', provider: 'anthropic', verification_mode: 'maximum' });
  t.equal(a.status, 200);
  t.match(a.body, { final_answer: 'true', engines_used: 3, developer_fields: { translated_query: '17 * 3 = 51' } });
});

t.test('failures: a refused reply is 503 with what the model said; unknown provider 400; unreadable 422', async (t) => {
  queue.openai.push({ content: 'It is 51, trust me.' });
  const bad = await post({ query: 'What is seventeen times three?', provider: 'openai' });
  t.equal(bad.status, 503);
  t.match(bad.body, { code: 'consensus_translation_failed', error_code: 'malformed_output', translation: { untrusted: true, model_output: 'It is 51, trust me.' } });
  const unknown = await post({ query: 'What is 2 plus 2?', provider: 'nope' });
  t.equal(unknown.status, 400);
  t.equal(unknown.body.code, 'unknown_provider');
  const prose = await post({ query: 'Is Paris the capital of France?' });
  t.equal(prose.status, 422);
  t.match(prose.body, { code: 'consensus_insufficient_engines', query_kind: 'unsupported' });
  const plain = await post({ query: '12 * 12 = 144' });
  t.equal(plain.status, 200);
  t.equal(plain.body.status, 'VERIFIED', 'arithmetic that needs no translation keeps its proof');
  t.notOk(plain.body.verification_chain.some((e: { engine: string }) => e.engine === 'translator'));
});

t.test('a translation that is an equation is refused, however its equals sign is written', async (t) => {
  // '＝' (fullwidth) is '=' once the math engine applies NFKC: the engines checked the model's own equation
  for (const expression of ['2+2=4', '2+2＝4', '2+2﹦4']) {
    queue.openai.push({ content: JSON.stringify({ expression, claimed_answer: null, reasoning: 'r', confidence: 0.5 }) });
    const r = await post({ query: 'Is two and two four?', provider: 'openai' });
    t.equal(r.status, 422, expression);
    t.match(r.body, { code: 'consensus_insufficient_engines', detail: /equation/ }, expression);
  }
});
