import t from 'tap';
import { proofRefOf } from '../../../core/verdict.js';
import { sha256Hex } from '../../../core/json/canonical.js';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../../helpers/server.js';
import { startFakeLlm, type Behaviour } from '../../helpers/fake-llm.js';

const queue: Behaviour[] = [];
const openai = await startFakeLlm('openai', () => queue.shift() ?? { status: 599 });
t.teardown(() => openai.close());

const s: TestServer = await startServer({
  // the stand-in authenticator replaces the accounts plugin, and agents, which needs the real one;
  // of the engines only fact (no other warms up beside it)
  plugins: [testAuthPlugin(), ...builtinsWithEngines('fact').filter((p) => p.name !== 'auth' && p.name !== 'agents')],
  config: { llm: { openai_base_url: openai.url, openai_model: 'fake-gpt', timeout_ms: 300 } } as never,
});
t.teardown(() => s.close());

const CONTEXT = 'The Eiffel Tower is 330 metres tall. It was completed in 1889. The tower is repainted every seven years.';
const post = (body: unknown, path = '/verify/fact') => s.request('POST', path, { body, apiKey: TEST_API_KEY });

t.test('SUPPORTED: VERIFIED, proof_ref binds claim, context hash, rule and evidence', async (t) => {
  const claim = 'the Eiffel tower is 330 metres tall';
  const r = await post({ claim, context: CONTEXT });
  t.equal(r.status, 200);
  t.match(r.body, {
    verdict: 'SUPPORTED', confidence: 1, reasoning: /literally/, provider_used: 'none', latency_ms: Number,
    status: 'VERIFIED', agent_message: String, proof_ref: /^sha256:[0-9a-f]{64}$/,
    developer_fields: { is_valid: true, rule: 'exact_sentence', claim_sentences: 1 },
    is_valid: true, rule: 'exact_sentence',
  });
  const evidence = r.body.developer_fields.evidence;
  t.match(evidence, { matches: [{ context_sentence_index: 0, context_sentence: 'The Eiffel Tower is 330 metres tall.' }] });
  t.equal(
    r.body.proof_ref,
    proofRefOf({
      engine: 'fact',
      engine_version: r.body.developer_fields.engine_version,
      input: { claim, context_sha256: sha256Hex(CONTEXT) },
      parameters: { rule: 'exact_sentence' },
      result: { verdict: 'SUPPORTED', evidence },
    }),
  );
  const other = await post({ claim, context: CONTEXT + ' Extra.' }, '/v1/verify/fact');
  t.equal(other.body.verdict, 'SUPPORTED');
  t.not(other.body.proof_ref, r.body.proof_ref, 'another context, another proof_ref');
  t.equal(openai.requests.length, 0, 'a decided claim never consults a model');
});

t.test('REFUTED: VERIFIED with is_valid false and both numbers', async (t) => {
  const r = await post({ claim: 'It was completed in 1899.', context: CONTEXT });
  t.equal(r.status, 200);
  t.match(r.body, {
    verdict: 'REFUTED', confidence: 1, status: 'VERIFIED', proof_ref: String,
    developer_fields: { is_valid: false, rule: 'numeric_conflict', evidence: { claim_value: '1899', context_value: '1889', context_sentence_index: 1 } },
  });
});

t.test('INCONCLUSIVE: UNVERIFIABLE; a model opinion is advisory and never the verdict', async (t) => {
  const plain = await post({ claim: 'The tower is 1,063 feet tall.', context: CONTEXT });
  t.match(plain.body, { verdict: 'INCONCLUSIVE', confidence: 0, status: 'UNVERIFIABLE', proof_ref: null, provider_used: 'none', developer_fields: { is_valid: false, rule: null, advisory_checks: [] } });

  queue.push({ content: JSON.stringify({ verdict: 'SUPPORTED', reasoning: '330 m is about 1,083 ft', confidence: 0.95 }) });
  const advised = await post({ claim: 'The tower is 1,063 feet tall.', context: CONTEXT, provider: 'openai' });
  t.equal(advised.status, 200);
  t.match(advised.body, {
    verdict: 'INCONCLUSIVE', confidence: 0, status: 'UNVERIFIABLE', proof_ref: null, provider_used: 'openai',
    developer_fields: {
      is_valid: false,
      advisory_checks: [{ name: 'llm_fact_opinion', advisory_only: true, constraint_id: 'fact_verifier.llm_opinion', details: { provider: 'openai', suggested_verdict: 'SUPPORTED', confidence: 0.95 } }],
    },
  });
  const sent = openai.requests.at(-1)!.body.messages[1].content as string;
  t.match(sent, /CONTEXT:\nThe Eiffel Tower/);
  t.match(sent, /CLAIM:\nThe tower is 1,063 feet tall\./);

  queue.push({ status: 500 });
  const failed = await post({ claim: 'The tower is blue.', context: CONTEXT, provider: 'openai' });
  t.equal(failed.status, 200, 'a failed advisory call does not fail the request');
  t.match(failed.body, { verdict: 'INCONCLUSIVE', developer_fields: { advisory_checks: [{ name: 'llm_fact_opinion', details: { error_code: 'http_error' } }] } });

  queue.push({ delayMs: 3000, content: '{}' });
  const slow = await post({ claim: 'The tower is blue.', context: CONTEXT, provider: 'openai' });
  t.match(slow.body, { verdict: 'INCONCLUSIVE', developer_fields: { advisory_checks: [{ details: { error_code: 'timeout' } }] } });

  const local = await post({ claim: 'The tower is blue.', context: CONTEXT, provider: 'local' });
  t.match(local.body, { verdict: 'INCONCLUSIVE', provider_used: 'none', developer_fields: { advisory_checks: [] } }, 'the local rules give no opinion on facts');
});

t.test('a model cannot talk a refutation into support', async (t) => {
  queue.push({ content: JSON.stringify({ verdict: 'SUPPORTED', reasoning: 'trust me', confidence: 1 }) });
  const r = await post({ claim: 'The Eiffel Tower is 331 metres tall.', context: CONTEXT, provider: 'openai' });
  t.match(r.body, { verdict: 'REFUTED', status: 'VERIFIED', provider_used: 'none' });
  queue.length = 0;
});

t.test('request errors', async (t) => {
  const unknown = await post({ claim: 'x', context: CONTEXT, provider: 'gpt-99' });
  t.equal(unknown.status, 400);
  t.match(unknown.body, { code: 'unknown_provider', available_providers: ['local', 'openai'] });
  const unconfigured = await post({ claim: 'x', context: CONTEXT, provider: 'anthropic' });
  t.equal(unconfigured.status, 400);
  t.match(unconfigured.body, { code: 'provider_not_configured' });
  for (const body of [{ claim: 'x' }, { context: 'y' }, { claim: '', context: 'y' }, { claim: '   ', context: 'y' }, { claim: 'x', context: 'y', extra: 1 }]) {
    const r = await post(body);
    t.equal(r.status, 400, JSON.stringify(body));
  }
  const noKey = await s.request('POST', '/verify/fact', { body: { claim: 'x', context: 'y' } });
  t.equal(noKey.status, 401);
});

t.test('batch items of type fact: claim from `query`, context from params', async (t) => {
  const r = await s.request('POST', '/verify/batch', {
    body: {
      items: [
        { type: 'fact', query: 'It was completed in 1889.', params: { context: CONTEXT } },
        { type: 'fact', query: 'It was completed in 1066.', params: { context: CONTEXT } },
        { type: 'fact', query: 'It was completed in 1889.' },
      ],
    },
    apiKey: TEST_API_KEY,
  });
  t.equal(r.status, 200);
  const [a, b, c] = r.body.items.map((i: { result: unknown }) => i.result);
  t.match(a, { status: 'VERIFIED', developer_fields: { is_valid: true, rule: 'exact_sentence' } });
  t.match(b, { status: 'VERIFIED', developer_fields: { is_valid: false, rule: 'numeric_conflict' } });
  t.match(c, { status: 'BLOCKED', developer_fields: { constraint_id: 'fact_verifier.invalid_request' } });
});
