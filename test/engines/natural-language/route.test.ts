import t, { type Test } from 'tap';
import { sha256Ref } from '../../../core/json/canonical.js';
import type { PluginEntry } from '../../../core/types.js';
import { builtinsWithEngines, startServer, testAuthPlugin, TEST_API_KEY, type TestServer, untilReady } from '../../helpers/server.js';
import { mathJson, startFakeLlm, type Behaviour, type FakeLlm } from '../../helpers/fake-llm.js';

const LLM_TIMEOUT_MS = 300;

/**
 * the built-ins with the stand-in authenticator instead of the real accounts plugin (and agents, which
 * needs it); of the engines only this one and math, which evaluates its translations
 */
const NEEDS_REAL_AUTH = ['auth', 'agents'];
function plugins(drop: string[] = []): PluginEntry[] {
  return [testAuthPlugin(), ...builtinsWithEngines('natural-language', 'math').filter((p) => !NEEDS_REAL_AUTH.includes(p.name) && !drop.includes(p.name))];
}

async function server(t: Pick<Test, 'teardown' | 'ok'>, opts: { openai?: FakeLlm; anthropic?: FakeLlm; drop?: string[] } = {}): Promise<TestServer> {
  const llm: Record<string, unknown> = { timeout_ms: LLM_TIMEOUT_MS };
  if (opts.openai) Object.assign(llm, { openai_base_url: opts.openai.url, openai_model: 'fake-gpt', openai_api_key: 'sk-fake' });
  if (opts.anthropic) Object.assign(llm, { anthropic_base_url: opts.anthropic.url, anthropic_model: 'fake-claude', anthropic_api_key: 'sk-ant-fake' });
  return ready(t, await startServer({ plugins: plugins(opts.drop), config: { llm } as never }));
}

/** engines warm up in their workers (mathjs, z3); on a loaded machine that takes seconds */
async function ready(t: Pick<Test, 'teardown' | 'ok'>, s: TestServer): Promise<TestServer> {
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  t.ok(s.kernel.isReady(), 'server ready');
  return s;
}

/** replies the fake servers give next, in order (a test sets them before its requests) */
const queue: Record<'openai' | 'anthropic', Behaviour[]> = { openai: [], anthropic: [] };
const next = (kind: 'openai' | 'anthropic'): Behaviour => queue[kind].shift() ?? { status: 599 };
const fakes = {
  openai: await startFakeLlm('openai', () => next('openai')),
  anthropic: await startFakeLlm('anthropic', () => next('anthropic')),
};
t.teardown(() => Promise.all([fakes.openai.close(), fakes.anthropic.close()]));

/** one server with every provider configured (default local), shared by the tests that do not change its plugins */
let shared: TestServer | null = null;
async function sharedServer(_t: Test): Promise<TestServer> {
  // closed when the whole file ends (root teardown), not with the first test that used it
  shared ??= await server(t, { openai: fakes.openai, anthropic: fakes.anthropic });
  return shared;
}

async function fake(_t: Test, kind: 'openai' | 'anthropic', replies: Behaviour[]): Promise<FakeLlm> {
  queue[kind] = [...replies];
  fakes[kind].requests.length = 0;
  return fakes[kind];
}

const post = (s: TestServer, body: unknown, path = '/verify/natural_language') => s.request('POST', path, { body, apiKey: TEST_API_KEY });

const TRUST_FIXED = {
  query_interpretation_source: 'llm_translation',
  query_semantics_verified: false,
  verification_scope: 'translated_expression_only',
  formal_proof: false,
};

t.test('local translator: a claimed answer is checked exactly and attested; the answer is INCONCLUSIVE', async (t) => {
  const s = await sharedServer(t);
  const r = await post(s, { query: 'is 15% of 80 equal to 12' });
  t.equal(r.status, 200);
  t.match(r.body, {
    status: 'INCONCLUSIVE',
    user_query: 'is 15% of 80 equal to 12',
    translation: { expression: '15 / 100 * 80', claimed_answer: 12, reasoning: String, confidence: Number },
    verification: { calculated_value: 12, calculated_value_exact: '12', is_correct: true, diff: 0, inner_status: 'VERIFIED' },
    trust_boundary: { ...TRUST_FIXED, deterministic_expression_evaluation: true, translation_claim_self_consistent: true, provider_used: 'local', overall_status: 'INCONCLUSIVE' },
    final_answer: 12,
    provider_used: 'local',
    latency_ms: Number,
    diagnostic: { status: 'UNVERIFIABLE', proof_ref: null, developer_fields: { is_valid: true, query_semantics_verified: false, inner_status: 'VERIFIED' } },
    attestation: String,
    attestation_id: String,
  });
  t.notOk('attestation_error' in r.body.trust_boundary);
  const checks = r.body.diagnostic.developer_fields.advisory_checks;
  t.match(checks, [{ name: 'llm_translation', advisory_only: true, constraint_id: 'nl_verifier.llm_translation', details: { provider: 'local' } }]);

  // the token verifies and is bound to the translated expression, not the prose
  const v = await s.request('POST', '/attestation/verify', { body: { jwt: r.body.attestation }, apiKey: TEST_API_KEY });
  t.equal(v.status, 200);
  t.equal(v.body.claims.svc.query_hash, sha256Ref('15 / 100 * 80'));
  t.not(v.body.claims.svc.query_hash, sha256Ref('is 15% of 80 equal to 12'));
  t.equal(v.body.claims.svc.proof_hash, r.body.diagnostic.developer_fields.inner_verdict.proof_ref, 'the token attests the inner math proof');
  t.match(v.body.claims.svc.result, { engine: 'math', status: 'VERIFIED' });
  t.equal(v.body.claims.jti, r.body.attestation_id);
});

t.test('local translator: a wrong claim is CORRECTION_NEEDED inside an INCONCLUSIVE answer', async (t) => {
  const s = await sharedServer(t);
  const r = await post(s, { query: 'Is 2+2=5?' }, '/v1/verify/natural_language');
  t.equal(r.status, 200);
  t.match(r.body, {
    status: 'INCONCLUSIVE',
    verification: { calculated_value: 4, is_correct: false, diff: 1, inner_status: 'CORRECTION_NEEDED' },
    trust_boundary: { deterministic_expression_evaluation: true, translation_claim_self_consistent: false, overall_status: 'INCONCLUSIVE' },
    final_answer: 4,
    diagnostic: { status: 'UNVERIFIABLE', developer_fields: { is_valid: false, is_correct: false } },
    attestation: String,
  });
});

t.test('local translator: no claimed answer → evaluated, nothing checked, nothing attested', async (t) => {
  const s = await sharedServer(t);
  const r = await post(s, { query: 'what is 12 times 7 plus 3' });
  t.equal(r.status, 200);
  t.match(r.body, {
    status: 'INCONCLUSIVE',
    translation: { expression: '12 * 7 + 3', claimed_answer: null },
    verification: { calculated_value: 87, calculated_value_exact: '87', is_correct: null, diff: null, inner_status: 'EVALUATED' },
    trust_boundary: { deterministic_expression_evaluation: false, translation_claim_self_consistent: false },
    final_answer: 87,
    diagnostic: { status: 'UNVERIFIABLE', proof_ref: null },
  });
  t.notOk('attestation' in r.body, 'no claim was verified, so there is nothing to attest');
  const third = await post(s, { query: 'what is 10 divided by 3' });
  t.match(third.body.verification, { calculated_value_exact: '10/3' });
  t.ok(Math.abs(third.body.final_answer - 10 / 3) < 1e-12);
});

t.test('NOT_MATH_QUERY, ERROR and BLOCKED with their HTTP statuses', async (t) => {
  const openai = await fake(t, 'openai', [{ content: mathJson('import("fs")', null) }]);
  void openai;
  const s = await sharedServer(t);
  const notMath = await post(s, { query: 'what is the capital of France' });
  t.equal(notMath.status, 200);
  t.match(notMath.body, {
    status: 'NOT_MATH_QUERY', final_answer: null, verification: null, error: String,
    trust_boundary: { ...TRUST_FIXED, overall_status: 'NOT_MATH_QUERY', deterministic_expression_evaluation: false },
    diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'nl_verifier.not_math_query' } },
  });
  const divZero = await post(s, { query: 'what is 5 divided by 0' });
  t.equal(divZero.status, 422);
  t.match(divZero.body, { status: 'ERROR', error: String, final_answer: null, diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'math_verifier.division_by_zero' } } });
  const negRoot = await post(s, { query: 'what is the square root of -4' });
  t.equal(negRoot.status, 422, 'natural-language arithmetic is evaluated in the real domain');
  t.match(negRoot.body.diagnostic.developer_fields, { constraint_id: 'math_verifier.domain_error' });
  const policy = await post(s, { query: 'compute something', provider: 'openai' });
  t.equal(policy.status, 403, 'a translation outside the math allowlist is a policy block');
  t.match(policy.body, { status: 'BLOCKED', provider_used: 'openai', trust_boundary: { overall_status: 'BLOCKED' }, diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'math_verifier.disallowed_construct' } } });
  t.notOk('attestation' in policy.body);
});

t.test('OpenAI-compatible provider: translation over HTTP, evaluated by the math engine, not trusted', async (t) => {
  // the model claims 90 and even "computes" wrongly; only the engine's value counts
  const openai = await fake(t, 'openai', [{ content: mathJson('12 * 7 + 3', 90, { confidence: 0.99 }) }]);
  void openai;
  const s = await sharedServer(t);
  const r = await post(s, { query: 'twelve sevens and three more make ninety, right?', provider: 'openai' });
  t.equal(r.status, 200);
  t.match(r.body, {
    status: 'INCONCLUSIVE',
    provider_used: 'openai',
    translation: { expression: '12 * 7 + 3', claimed_answer: 90, confidence: 0.99 },
    verification: { calculated_value: 87, is_correct: false, diff: 3, inner_status: 'CORRECTION_NEEDED' },
    trust_boundary: { provider_used: 'openai', translation_claim_self_consistent: false },
    diagnostic: { status: 'UNVERIFIABLE' },
  });
  t.equal(openai.requests.length, 1);
  t.equal(openai.requests[0].body.messages[1].content, 'twelve sevens and three more make ninety, right?');
});

t.test('real model replies: the spec object without is_math, fences, prose, numeric strings (OpenAI-compatible and Anthropic)', async (t) => {
  const spec = JSON.stringify({ expression: '17 * 3', claimed_answer: null, reasoning: 'seventeen times three', confidence: 0.9 });
  const variants = [
    spec,
    '```json\n' + spec + '\n```',
    'Here you go: ' + spec + ' Anything else?',
    JSON.stringify({ expression: '17 * 3', claimed_answer: '51', reasoning: 'r', confidence: '0.8' }),
  ];
  const s = await sharedServer(t);
  for (const kind of ['openai', 'anthropic'] as const) {
    const llm = await fake(t, kind, variants.map((content) => ({ content })));
    for (const [i, v] of variants.entries()) {
      const r = await post(s, { query: 'What is seventeen times three?', provider: kind });
      t.equal(r.status, 200, `${kind} variant ${i}`);
      t.match(r.body, { status: 'INCONCLUSIVE', final_answer: 51, provider_used: kind, translation: { expression: '17 * 3' }, verification: { calculated_value: 51 } }, v);
    }
    const last = await post(s, { query: 'What is seventeen times three?', provider: kind });
    t.equal(last.status, 503, 'the fake has no more replies: an HTTP error, not a guess');
    t.equal(llm.requests.length, variants.length + 1);
  }
  const refused = await fake(t, 'anthropic', [{ content: 'The answer is {fifty-one}.' }]);
  void refused;
  const r = await post(s, { query: 'What is seventeen times three?', provider: 'anthropic' });
  t.equal(r.status, 503);
  t.match(r.body, { status: 'ERROR', error_code: 'malformed_output', final_answer: null, verification: null });
  t.same(r.body.translation, { untrusted: true, model_output: 'The answer is {fifty-one}.', truncated: false });
});

t.test('Anthropic provider picked by the request', async (t) => {
  const anthropic = await fake(t, 'anthropic', [{ content: mathJson('sqrt(144)', 12) }]);
  const s = await sharedServer(t);
  const r = await post(s, { query: 'is the square root of 144 twelve', provider: 'anthropic' });
  t.equal(r.status, 200);
  t.match(r.body, { status: 'INCONCLUSIVE', provider_used: 'anthropic', verification: { is_correct: true }, attestation: String });
  t.equal(anthropic.requests[0].headers['x-api-key'], 'sk-ant-fake');
});

t.test('provider failures: timeout, HTTP error, malformed output → ERROR 503, no answer', async (t) => {
  const openai = await fake(t, 'openai', [
    { delayMs: LLM_TIMEOUT_MS * 10, content: mathJson('1', 1) },
    { status: 500 },
    { content: 'Sure! The answer is 87.' },
    { content: mathJson('1 + 1 = 2', null) },
  ]);
  void openai;
  const s = await sharedServer(t);
  const expected: Array<[string, string, number]> = [
    ['timeout', 'nl_verifier.translation_timeout', 503],
    ['http_error', 'nl_verifier.translation_failed', 503],
    ['malformed_output', 'nl_verifier.translation_failed', 503],
  ];
  for (const [code, constraint, status] of expected) {
    const r = await post(s, { query: 'what is 1 plus 1', provider: 'openai' });
    t.equal(r.status, status, code);
    t.match(r.body, { status: 'ERROR', error_code: code, final_answer: null, provider_used: 'openai', diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: constraint } } });
    // a reply that was refused is handed back as untrusted data; no reply, no translation
    if (code === 'malformed_output') t.same(r.body.translation, { untrusted: true, model_output: 'Sure! The answer is 87.', truncated: false });
    else t.equal(r.body.translation, null);
    t.notOk('attestation' in r.body);
  }
  const eq = await post(s, { query: 'what is 1 plus 1', provider: 'openai' });
  t.equal(eq.status, 422);
  t.match(eq.body, { status: 'ERROR', diagnostic: { developer_fields: { constraint_id: 'nl_verifier.translation_invalid' } } });
  t.equal(openai.requests.length, 4, 'one upstream call per request: no retries');
});

t.test('provider selection errors are 400 problems naming the available providers', async (t) => {
  const s = await sharedServer(t);
  const unknown = await post(s, { query: 'what is 1 plus 1', provider: 'gpt-99' });
  t.equal(unknown.status, 400);
  t.match(unknown.body, { code: 'unknown_provider', available_providers: ['local', 'openai', 'anthropic'] });
  const invalid = await post(s, { query: '' });
  t.equal(invalid.status, 400);
  const extra = await post(s, { query: '1+1', model: 'x' });
  t.equal(extra.status, 400, 'the request schema is closed');
  const noKey = await s.request('POST', '/verify/natural_language', { body: { query: '1+1' } });
  t.equal(noKey.status, 401);
});

t.test('no signer: a verified inner result is withheld as BLOCKED with attestation_error', async (t) => {
  const s = await server(t, { drop: ['attestation', 'verification-context', 'badges'] });
  const r = await post(s, { query: 'is 15% of 80 equal to 12' });
  t.equal(r.status, 503);
  t.match(r.body, {
    status: 'BLOCKED',
    final_answer: null,
    verification: null,
    error_code: 'CRYPTO_UNAVAILABLE',
    trust_boundary: { overall_status: 'BLOCKED', attestation_error: 'CRYPTO_UNAVAILABLE', deterministic_expression_evaluation: false, translation_claim_self_consistent: false },
    diagnostic: { status: 'BLOCKED', developer_fields: { constraint_id: 'api.attestation.signing_error' } },
  });
  t.notOk('attestation' in r.body, 'no token');
  const unconfigured = await post(s, { query: 'what is 1 plus 1', provider: 'openai' });
  t.equal(unconfigured.status, 400, 'a provider without settings');
  t.match(unconfigured.body, { code: 'provider_not_configured', available_providers: ['local'] });
  t.notMatch(JSON.stringify(r.body.diagnostic), /"calculated_value"/, 'the value does not surface');
  // without a claim nothing needs signing, so the evaluation is still reported
  const plain = await post(s, { query: 'what is 2 plus 2' });
  t.equal(plain.status, 200);
  t.match(plain.body, { status: 'INCONCLUSIVE', final_answer: 4 });
});

t.test('batch items of type natural_language use the same flow', async (t) => {
  const s = await sharedServer(t);
  const r = await s.request('POST', '/verify/batch', {
    body: { items: [{ query: 'is 2 plus 2 equal to 4' }, { query: 'hello there' }, { query: 'x', type: 'natural_language', params: { provider: 'gpt-99' } }] },
    apiKey: TEST_API_KEY,
  });
  t.equal(r.status, 200);
  const results = r.body.items.map((i: { result: { status: string; developer_fields: Record<string, unknown> } }) => i.result);
  t.match(results[0], { status: 'UNVERIFIABLE', developer_fields: { is_correct: true, query_semantics_verified: false } });
  t.match(results[1], { status: 'BLOCKED', developer_fields: { constraint_id: 'nl_verifier.not_math_query' } });
  t.match(results[2], { status: 'BLOCKED', developer_fields: { is_valid: false } });
});
