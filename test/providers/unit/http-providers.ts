import t, { type Test } from 'tap';
import { openAiProvider } from '../../../plugins/providers/openai.js';
import { anthropicProvider, ANTHROPIC_VERSION } from '../../../plugins/providers/anthropic.js';
import { MAX_RESPONSE_BYTES } from '../../../plugins/providers/http.js';
import type { Provider } from '../../../plugins/providers/types.js';
import { mathJson, startFakeLlm, type Behaviour, type FakeLlm } from '../../helpers/fake-llm.js';

/** the deadline of the one test about deadlines; the others get a generous one, so a loaded machine cannot turn their answer into a timeout */
const TIMEOUT_MS = 200;
const GENEROUS_MS = 10_000;

type Kind = 'openai' | 'anthropic';

async function setup(t: Test, kind: Kind, respond: (n: number) => Behaviour, timeoutMs = GENEROUS_MS): Promise<{ fake: FakeLlm; provider: Provider }> {
  let n = 0;
  const fake = await startFakeLlm(kind, () => respond(n++));
  t.teardown(() => fake.close());
  const provider =
    kind === 'openai'
      ? openAiProvider({ baseUrl: fake.url, apiKey: 'sk-test-openai', model: 'test-model', timeoutMs })
      : anthropicProvider({ baseUrl: fake.url, apiKey: 'sk-ant-test', model: 'claude-test', timeoutMs });
  return { fake, provider };
}

for (const kind of ['openai', 'anthropic'] as const) {
  t.test(`${kind}: a well-formed reply is parsed, validated and attributed`, async (t) => {
    const { fake, provider } = await setup(t, kind, () => ({ content: mathJson('12 * 7 + 3', 87) }));
    const r = await provider.translate('math', 'is 12 times 7 plus 3 equal to 87');
    t.same(r, { is_math: true, expression: '12 * 7 + 3', claimed_answer: 87, claimed_answer_exact: '87', reasoning: 'read as arithmetic', confidence: 0.8, provider: kind });
    t.equal(fake.requests.length, 1, 'exactly one request');
    const req = fake.requests[0];
    t.equal(req.method, 'POST');
    if (kind === 'openai') {
      t.equal(req.headers.authorization, 'Bearer sk-test-openai');
      t.equal(req.body.model, 'test-model');
      t.equal(req.body.temperature, 0);
      t.same(req.body.response_format, { type: 'json_object' });
      t.equal(req.body.messages[0].role, 'system');
      t.same(req.body.messages[1], { role: 'user', content: 'is 12 times 7 plus 3 equal to 87' });
    } else {
      t.equal(req.headers['x-api-key'], 'sk-ant-test');
      t.equal(req.headers['anthropic-version'], ANTHROPIC_VERSION);
      t.equal(req.body.model, 'claude-test');
      t.type(req.body.system, 'string');
      t.type(req.body.max_tokens, 'number');
      t.same(req.body.messages, [{ role: 'user', content: 'is 12 times 7 plus 3 equal to 87' }]);
    }
  });

  t.test(`${kind}: fenced JSON and the logic and fact targets`, async (t) => {
    const replies: Behaviour[] = [
      { content: '```json\n' + mathJson(null, null) + '\n```' },
      { content: '{"expression": "(AND (GT x 5) (LT x 10))"}' },
      { content: '{"verdict": "SUPPORTED", "reasoning": "it says so", "confidence": 0.7}' },
    ];
    const { provider } = await setup(t, kind, (n) => replies[n]);
    t.match(await provider.translate('math', 'hello'), { is_math: false, expression: null, claimed_answer: null });
    t.same(await provider.translate('logic_dsl', 'x between 5 and 10'), { expression: '(AND (GT x 5) (LT x 10))', provider: kind });
    t.same(await provider.translate('fact_opinion', 'CONTEXT: ... CLAIM: ...'), { verdict: 'SUPPORTED', reasoning: 'it says so', confidence: 0.7, provider: kind });
  });

  t.test(`${kind}: malformed output is refused, never repaired`, async (t) => {
    const bad: Behaviour[] = [
      { content: 'The answer is 87.' },
      { content: '{"is_math": true, "expression": "", "claimed_answer": null, "reasoning": "x", "confidence": 0.5}' },
      { content: '{"is_math": true, "expression": "1+1", "claimed_answer": "about 2", "reasoning": "x", "confidence": 0.5}' },
      { content: '{"is_math": true, "expression": "1+1", "claimed_answer": 2, "reasoning": "x", "confidence": 7}' },
      { content: '{"is_math": true, "expression": "1+1"}' },
      { content: '[1, 2]' },
      { raw: 'not json at all' },
      { raw: JSON.stringify({ unexpected: true }) },
      { bytes: MAX_RESPONSE_BYTES + 10 },
    ];
    const { fake, provider } = await setup(t, kind, (n) => bad[n]);
    for (let i = 0; i < bad.length; i++) {
      await t.rejects(provider.translate('math', 'q'), { name: 'ProviderError', code: 'malformed_output', provider: kind }, `case ${i}`);
    }
    t.equal(fake.requests.length, bad.length, 'one request per call: no retries');
  });

  t.test(`${kind}: HTTP errors name the status and never echo the upstream body`, async (t) => {
    const { fake, provider } = await setup(t, kind, (n) => ({ status: [500, 429, 401][n] }));
    for (const status of [500, 429, 401]) {
      const err = await provider.translate('math', 'q').then(
        () => null,
        (e: unknown) => e as { code: string; upstreamStatus: number; message: string },
      );
      t.match(err, { code: 'http_error', upstreamStatus: status });
      t.notMatch(err?.message ?? '', /secret|sk-/, 'no upstream text in the message');
    }
    t.equal(fake.requests.length, 3, 'no retries after an error');
  });

  t.test(`${kind}: a slow provider times out at the configured deadline; no retry`, async (t) => {
    const { fake, provider } = await setup(t, kind, () => ({ delayMs: TIMEOUT_MS * 10, content: mathJson('1', null) }), TIMEOUT_MS);
    await t.rejects(provider.translate('math', 'q'), { name: 'ProviderError', code: 'timeout', provider: kind });
    t.equal(fake.requests.length, 1);
  });

  t.test(`${kind}: a caller's abort is a cancellation, not a timeout`, async (t) => {
    const ac = new AbortController();
    // the caller leaves once the provider has the request in hand (its answer is far off): no guessed delay
    const { provider } = await setup(t, kind, () => {
      ac.abort();
      return { delayMs: TIMEOUT_MS * 10, content: mathJson('1', null) };
    });
    await t.rejects(provider.translate('math', 'q', ac.signal), { code: 'cancelled' });
  });
}

t.test('an unreachable provider is a network error', async (t) => {
  const fake = await startFakeLlm('openai', () => ({ content: '{}' }));
  const url = fake.url;
  await fake.close();
  const p = openAiProvider({ baseUrl: url, apiKey: null, model: 'm', timeoutMs: 2000 });
  await t.rejects(p.translate('math', 'q'), { name: 'ProviderError', code: 'network_error', provider: 'openai' });
});

t.test('an OpenAI-compatible server without a key gets no authorization header', async (t) => {
  const fake = await startFakeLlm('openai', () => ({ content: mathJson('2', null) }));
  t.teardown(() => fake.close());
  const p = openAiProvider({ baseUrl: fake.url + '/', apiKey: null, model: 'llama', timeoutMs: 2000 });
  await p.translate('math', 'q');
  t.equal(fake.requests[0].headers.authorization, undefined);
  t.equal(fake.requests[0].url, '/v1/chat/completions', 'a trailing slash on the base URL is harmless');
});
