import t from 'tap';
import mathPlugin from '../../../plugins/engines/math/index.js';
import { mathRoutes } from '../../../plugins/engines/math/routes.js';
import { EngineError } from '../../../core/workers/pools.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../../helpers/server.js';
import type { EngineHandle, Plugin, Verifier } from '../../../core/types.js';

/** a cold worker loads mathjs (seconds on a busy machine): wait for the engine's warm-up, allow slow tasks */
const seenSubjects: Array<Record<string, unknown> | undefined> = [];
const stateProbe: Plugin = {
  name: 'state-probe',
  register: (app) => app.phase('reply', (_ctx, o) => void (o.kind === 'reply' && seenSubjects.push(o.reply.subject ? { ...o.reply.subject } : undefined))),
};

async function warmServer() {
  const s = await startServer({ plugins: [testAuthPlugin(), mathPlugin, stateProbe], config: { workers: { threads: 1, task_timeout_ms: 120_000 } } });
  await untilReady(s.kernel);
  return s;
}

// one warm engine for the file: the cases share no state beyond seenSubjects, which each reads
// right after its own request; only the stub engines below need servers of their own
const warm = await warmServer();
t.teardown(() => warm.close());

t.test('POST /verify/math runs the engine in the worker pool', async (t) => {
  const s = warm;
  t.ok(s.kernel.isReady(), 'ready once the math engine has warmed up');

  const ok = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: '(x+1)^2 = x^2+2x+1' } });
  t.equal(ok.status, 200);
  t.equal(ok.body.status, 'VERIFIED');
  t.equal(ok.body.developer_fields.is_valid, true);
  t.equal(ok.body.is_valid, true, 'legacy flat field copied to the top level');
  t.equal(ok.body.message, 'Identity is true');
  t.match(ok.body.proof_ref, /^sha256:[0-9a-f]{64}$/);

  const last = seenSubjects[seenSubjects.length - 1];
  t.equal(last?.query, '(x+1)^2 = x^2+2x+1', 'the attestation binds the normalised expression');
  t.equal(last?.engine, 'math');
  await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: ' １+１＝２ ' } });
  t.equal(seenSubjects[seenSubjects.length - 1]?.query, '1+1=2');

  const v1 = await s.request('POST', '/v1/verify/math', { apiKey: TEST_API_KEY, body: { expression: '2+2=5' } });
  t.equal(v1.status, 200);
  t.equal(v1.body.status, 'VERIFIED');
  t.equal(v1.body.is_valid, false);

  const amb = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: '1/2(3+1)' } });
  t.equal(amb.status, 200);
  t.equal(amb.body.status, 'BLOCKED');
  t.equal(amb.body.warning, 'ambiguous');
  t.equal(amb.body.proof_ref, null);

  const real = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: 'sqrt(-4)', context: { domain: 'real' } } });
  t.equal(real.body.status, 'BLOCKED');
  t.equal(real.body.developer_fields.constraint_id, 'math_verifier.domain_error');

  // huge exact values stay valid JSON against the response schema (no Infinity floats)
  for (const expression of ['2^10000', 'sqrt(2)*10^299', 'exp(1000)', 'factorial(1000)/3', 'x^2 + x']) {
    const r = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression } });
    t.equal(r.status, 200, expression);
    t.equal(r.body.status, 'UNVERIFIABLE', expression);
  }

  const tol = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: '100', expected_value: '95', tolerance: '10' } });
  t.equal(tol.status, 200);
  t.equal(tol.body.status, 'BLOCKED');
  t.equal(tol.body.max_allowed_tolerance, '1');
});

t.test('schema errors are 400, missing credentials 401', async (t) => {
  const s = warm;
  const bad = [
    {},
    { expression: 5 },
    { expression: '' },
    { expression: 'x'.repeat(5001) },
    { expression: '1', context: { domain: 'p-adic' } },
    { expression: '1', tolerance: '0.1' },
    { expression: '1', expected_value: true },
    { expression: '1', extra: 1 },
  ];
  for (const body of bad) {
    const r = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body });
    t.equal(r.status, 400, JSON.stringify(body).slice(0, 60));
  }
  const anon = await s.request('POST', '/verify/math', { body: { expression: '1+1' } });
  t.equal(anon.status, 401);
});

function stubPlugin(kind: 'timeout' | 'crashed' | 'unavailable'): Plugin {
  const engine: EngineHandle = {
    name: 'math',
    version: 'stub',
    run: () => Promise.reject(new EngineError(kind, 'stub')),
  };
  return { name: 'math-stub', register: (app) => mathRoutes(app, engine) };
}

t.test('an engine timeout or crash fails closed: BLOCKED verdict; an unavailable pool is 503', async (t) => {
  for (const [kind, id] of [['timeout', 'math_verifier.timeout'], ['crashed', 'math_verifier.engine_error']] as const) {
    const s = await startServer({ plugins: [testAuthPlugin(), stubPlugin(kind)] });
    const r = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: '1+1=2' } });
    t.equal(r.status, 200, kind);
    t.equal(r.body.status, 'BLOCKED');
    t.equal(r.body.developer_fields.constraint_id, id);
    t.equal(r.body.proof_ref, null);
    await s.close();
  }
  const s = await startServer({ plugins: [testAuthPlugin(), stubPlugin('unavailable')] });
  const r = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: '1+1=2' } });
  t.equal(r.status, 503);
  t.match(r.headers.get('content-type'), /problem\+json/);
  t.equal(r.body.constraint_id, 'math_verifier.engine_unavailable');
  t.ok(r.headers.get('retry-after'));
  await s.close();
});

t.test('verifier.math serves composite routes with the route\'s checks as verdicts', async (t) => {
  const s = warm;
  const verifier = s.kernel.app.service('verifier.math');
  t.ok(verifier);
  const ok = await verifier!.verify({ expression: 'sin(x)^2 + cos(x)^2 = 1' });
  t.equal(ok.status, 'VERIFIED');
  t.match(ok.proof_ref, /^sha256:/);
  const tol = await verifier!.verify({ expression: 'pi', expected_value: '3.14159', tolerance: '0.00001', context: { domain: 'real' } });
  t.equal(tol.status, 'VERIFIED');
  t.equal(tol.developer_fields.is_correct, true);
  for (const bad of [{}, { expression: 7 }, { expression: 'x'.repeat(5001) }, { expression: '1', context: { domain: 'q' } }, { expression: '1', tolerance: '1' }]) {
    const r = await verifier!.verify(bad as Record<string, unknown>);
    t.equal(r.status, 'BLOCKED');
    t.equal(r.developer_fields.constraint_id, 'math_verifier.invalid_request');
  }
});

t.test('exact roots and magnitudes over HTTP: proven where exact, refused with the reason where not', async (t) => {
  const post = (raw: string) => warm.request('POST', '/verify/math', { apiKey: TEST_API_KEY, headers: { 'content-type': 'application/json' }, raw });
  // sqrt(5)^2 is exactly 5: factorial of it was BLOCKED domain_error
  const fact = await post('{"expression":"factorial(sqrt(5)^2)","expected_value":120}');
  t.equal(fact.status, 200);
  t.equal(fact.body.status, 'VERIFIED', JSON.stringify(fact.body).slice(0, 300));
  t.equal(fact.body.is_correct, true);
  t.match(fact.body.proof_ref, /^sha256:[0-9a-f]{64}$/);
  const eq = await post('{"expression":"factorial(sqrt(5)^2) = 120"}');
  t.equal(eq.body.status, 'VERIFIED');
  t.equal(eq.body.result, true);
  // 4 exactly, held in decimals: not provably an integer, so neither a value nor a domain error
  const near = await post('{"expression":"factorial((sqrt(5)+1)*(sqrt(5)-1))"}');
  t.equal(near.body.status, 'BLOCKED');
  t.equal(near.body.developer_fields.constraint_id, 'math_verifier.numeric_agreement_only');
  t.match(near.body.message, /not provably an integer/);
  const half = await post('{"expression":"factorial(2.5)"}');
  t.equal(half.body.developer_fields.constraint_id, 'math_verifier.domain_error');
  // a 31-digit claim as a JSON number is read as written, right and one off
  const big = await post('{"expression":"sqrt(5)^2*2^100","expected_value":6338253001141147007483516026880}');
  t.equal(big.body.status, 'VERIFIED', JSON.stringify(big.body).slice(0, 300));
  t.equal(big.body.is_correct, true);
  const off = await post('{"expression":"sqrt(5)^2*2^100","expected_value":6338253001141147007483516026881}');
  t.equal(off.body.status, 'VERIFIED');
  t.equal(off.body.is_correct, false);
  // the allowed tolerance of 2^200 is exact: 1% of it plus 0.01 is over it
  const tol = await post('{"expression":"2^200","expected_value":"1606938044258990275541962092341162602522202993782792835301376","tolerance":"16069380442589902755419620923411626025222029937827928353013.77"}');
  t.equal(tol.body.status, 'BLOCKED');
  t.equal(tol.body.developer_fields.constraint_id, 'math_verifier.tolerance_exceeded');
});
