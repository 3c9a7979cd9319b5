import { createHash, createPublicKey } from 'node:crypto';
import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import { decodeJwt, intercept, invoice, message, startA2A, startA2AWithoutCode, TEST_API_KEY, verifyWithJwk } from '../helpers/a2a.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('verdicts over HTTP: one server, default_allow on', async (t) => {
  const s = await startA2A({ max_requests_per_minute: 10_000 });
  t.teardown(() => s.close());
  const jwks = (await s.request('GET', '/.well-known/jwks.json')).body;

  t.test('forwarded: finance guard verifies; signed, bound to the payload', async (t) => {
    const payload = invoice([{ description: 'a', amount: '10.00', quantity: 2 }], '20.00');
    const r = await intercept(s, message({ payload_type: 'financial_transaction', payload }));
    t.equal(r.status, 200);
    t.equal(r.body.status, 'forwarded');
    t.equal(r.body.engine_used, 'finance_guard');
    t.match(r.body.audit_trace_id, UUID);
    t.match(r.body.verified_at, /Z$/);
    const { header, claims } = decodeJwt(r.body.attestation_jwt);
    t.same(header, { alg: 'ES256', typ: 'svc-a2a-attestation+jwt', kid: jwks.keys[0].kid });
    t.equal(claims.iss, 'did:svc:a2a:test-deploy');
    t.equal(claims.sub, sha256Ref(payload));
    t.equal(claims.exp - claims.iat, 300);
    t.equal(claims.jti, r.body.audit_trace_id);
    t.same(claims.svc_a2a, { version: '1.0', verdict: 'forwarded', engine: 'finance_guard', sender: 'agent-a', receiver: 'agent-b', sender_auth: 'none' });
    t.ok(verifyWithJwk(r.body.attestation_jwt, jwks.keys[0]), 'node:crypto verifies it with nothing but the JWKS');
  });

  t.test('sub binding: one changed byte of the payload no longer matches', async (t) => {
    const payload = invoice([{ description: 'a', amount: '10.00' }], '10.00');
    const r = await intercept(s, message({ payload_type: 'financial_transaction', payload }));
    const { claims } = decodeJwt(r.body.attestation_jwt);
    const tampered = JSON.parse(JSON.stringify(payload).replace('"a"', '"b"'));
    t.equal(claims.sub, sha256Ref(payload));
    t.not(claims.sub, sha256Ref(tampered));
    // key order does not change the commitment (RFC 8785), so a re-serialising proxy does not break it
    t.equal(claims.sub, sha256Ref({ data: { line_items: [{ amount: '10.00', description: 'a' }], claimed_total: '10.00' } }));
  });

  t.test('tampering with the token breaks the signature', async (t) => {
    const r = await intercept(s, message({ payload_type: 'logic_assertion', payload: { assertions: [{ claim: 'p', negated: false }] } }));
    const [h, p, sig] = r.body.attestation_jwt.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.svc_a2a.verdict = 'forwarded';
    claims.svc_a2a.receiver = 'agent-z';
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    t.ok(verifyWithJwk(r.body.attestation_jwt, jwks.keys[0]));
    t.notOk(verifyWithJwk(forged, jwks.keys[0]));
  });

  t.test('blocked by an engine: signed, HTTP 200 with the reason', async (t) => {
    const fin = await intercept(s, message({ payload_type: 'financial_transaction', payload: invoice([{ amount: '10.00' }], '12.00') }));
    t.equal(fin.status, 200);
    t.equal(fin.body.status, 'blocked');
    t.match(fin.body.reason, /12\.00.*10\.00/);
    t.equal(decodeJwt(fin.body.attestation_jwt).claims.svc_a2a.verdict, 'blocked');
    const logic = await intercept(s, message({ payload_type: 'logic_assertion', payload: { assertions: [{ claim: 'p', negated: false }, { claim: 'p', negated: true }] } }));
    t.equal(logic.body.status, 'blocked');
    t.same(logic.body.details.contradictions, ['p']);
    t.ok(logic.body.attestation_jwt);
    const code = await intercept(s, message({ payload_type: 'code_execution', payload: { code: 'import subprocess as sp\nsp.run(["id"])\n' } }));
    t.equal(code.body.status, 'blocked');
    t.equal(code.body.engine_used, 'code_guard');
    t.ok(verifyWithJwk(code.body.attestation_jwt, jwks.keys[0]));
  });

  t.test('heuristic_pass: code with no finding in either layer, signed', async (t) => {
    const r = await intercept(s, message({ payload_type: 'code_execution', payload: { code: 'def add(a, b):\n    return a + b\n' } }));
    t.equal(r.body.status, 'heuristic_pass');
    t.equal(decodeJwt(r.body.attestation_jwt).claims.svc_a2a.verdict, 'heuristic_pass');
  });

  t.test('unverifiable without a JWT: general, data_query, default type, malformed finance/logic', async (t) => {
    const cases = [
      message({ payload_type: 'general' }),
      message({ payload_type: 'data_query', payload: { query: 'select 1' } }),
      (() => {
        const m = message();
        delete m.payload_type;
        return m;
      })(),
      message({ payload_type: 'financial_transaction', payload: {} }),
      message({ payload_type: 'financial_transaction', payload: invoice([], '0') }),
      message({ payload_type: 'logic_assertion', payload: { assertions: 'p and not p' } }),
      message({ payload_type: 'logic_assertion', payload: {} }),
    ];
    for (const m of cases) {
      const r = await intercept(s, m);
      t.equal(r.status, 200);
      t.equal(r.body.status, 'unverifiable', JSON.stringify(m.payload));
      t.equal(r.body.attestation_jwt, null);
    }
    const dflt = await intercept(s, cases[2]);
    t.equal(dflt.body.engine_used, 'passthrough', 'payload_type defaults to general');
  });

  t.test('the AgentMessage schema', async (t) => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['sender missing', (() => { const m = message(); delete m.sender_agent_id; return m; })()],
      ['empty sender', message({ sender_agent_id: '' })],
      ['257-character receiver', message({ receiver_agent_id: 'r'.repeat(257) })],
      ['control character', message({ sender_agent_id: 'a\u0000b' })],
      ['C1 control character', message({ sender_agent_id: 'a\u0085b' })],
      ['unknown payload_type', message({ payload_type: 'sql' })],
      ['payload not an object', message({ payload: [1, 2] })],
      ['payload missing', (() => { const m = message(); delete m.payload; return m; })()],
      ['timestamp without offset', message({ timestamp: '2026-11-23T01:00:00' })],
      ['timestamp in another offset', message({ timestamp: '2026-11-23T01:00:00+01:00' })],
      ['timestamp not a date', message({ timestamp: 'yesterday' })],
      ['signature not a string', message({ signature: 5 })],
      ['metadata not an object', message({ metadata: 'x' })],
      ['unknown field', message({ extra: true })],
    ];
    for (const [name, m] of bad) {
      const r = await intercept(s, m);
      t.equal(r.status, 400, name);
      t.equal(r.headers.get('content-type'), 'application/problem+json', `${name}: problem body`);
    }
    const ok = [
      message({ sender_agent_id: 's'.repeat(256), timestamp: '2026-11-23T01:00:00.123456+00:00', signature: 'sig', metadata: { k: 1 } }),
      message({ sender_agent_id: 'agent/ü-日本' }),
    ];
    for (const m of ok) t.equal((await intercept(s, m)).status, 200);
  });

  t.test('authentication: an API key with verify:read', async (t) => {
    t.equal((await s.request('POST', '/a2a/intercept', { body: message() })).status, 401);
    t.equal((await s.request('POST', '/a2a/intercept', { body: message(), apiKey: 'wrong' })).status, 401);
    t.equal((await s.request('POST', '/v1/a2a/intercept', { body: message(), apiKey: TEST_API_KEY })).status, 200, '/v1 prefix too');
    t.equal((await s.request('GET', '/a2a/metrics')).status, 401);
  });

  t.test('JWKS: the current P-256 key, kid from the SPKI fingerprint', async (t) => {
    const r = await s.request('GET', '/.well-known/jwks.json');
    t.equal(r.status, 200);
    t.equal(r.body.keys.length, 1);
    const k = r.body.keys[0];
    t.same(Object.keys(k).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    t.match(k, { kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256' });
    const spki = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: k.x, y: k.y }, format: 'jwk' }).export({ type: 'spki', format: 'der' });
    t.equal(k.kid, `did:svc:a2a:test-deploy#key-${createHash('sha256').update(spki).digest('hex').slice(0, 16)}`);
  });

  t.test('health, identity', async (t) => {
    const h = await s.request('GET', '/a2a/health');
    t.same(h.body, { status: 'ok', service: 'proofgate-a2a', version: h.body.version });
    const id = await s.request('GET', '/health/identity');
    t.equal(id.body.a2a.issuer, 'did:svc:a2a:test-deploy');
    t.equal(id.body.a2a.kid, jwks.keys[0].kid);
  });

  t.test('metrics: JSON counters and Prometheus series', async (t) => {
    const before = (await s.request('GET', '/a2a/metrics', { apiKey: TEST_API_KEY })).body;
    await intercept(s, message({ payload_type: 'financial_transaction', payload: invoice([{ amount: 1 }], 1) }));
    await intercept(s, message({ payload_type: 'financial_transaction', payload: invoice([{ amount: 1 }], 5) }));
    await intercept(s, message({ payload_type: 'general' }));
    const after = (await s.request('GET', '/a2a/metrics', { apiKey: TEST_API_KEY })).body;
    t.equal(after.total_intercepts - before.total_intercepts, 3);
    t.equal(after.forwarded - before.forwarded, 1);
    t.equal(after.blocked - before.blocked, 1);
    t.equal(after.errors, before.errors);
    t.equal(after.engines.finance_guard - before.engines.finance_guard, 2);
    t.equal(after.engines.passthrough - before.engines.passthrough, 1);
    t.ok(after.avg_latency_ms > 0);
    const prom = await s.kernel.app.metrics.registry.getSingleMetricAsString('svc_a2a_intercepts_total');
    t.match(prom, /svc_a2a_intercepts_total\{verdict="forwarded",engine="finance_guard"\} \d+/);
    const hist = await s.kernel.app.metrics.registry.getSingleMetricAsString('svc_a2a_intercept_duration_seconds');
    t.match(hist, /svc_a2a_intercept_duration_seconds_bucket\{le="0.001",engine="finance_guard"\}/);
  });
});

t.test('413: a raw body over max_payload_size_bytes is refused before parsing', async (t) => {
  const s = await startA2AWithoutCode({ max_payload_size_bytes: 1024 });
  t.teardown(() => s.close());
  const big = message({ payload: { blob: 'x'.repeat(2000) } });
  const r = await intercept(s, big);
  t.equal(r.status, 413);
  t.equal(r.body.status, 413);
  const notJson = await s.request('POST', '/a2a/intercept', { raw: '{'.repeat(1500), headers: { 'content-type': 'application/json' }, apiKey: TEST_API_KEY });
  t.equal(notJson.status, 413, 'oversize garbage is 413, not 400: the cap comes first');
  const fits = await intercept(s, message({ payload: { blob: 'x'.repeat(500) } }));
  t.equal(fits.status, 200);
});

t.test('jwt_lifetime_seconds sets exp', async (t) => {
  const s = await startA2AWithoutCode({ jwt_lifetime_seconds: 42 });
  t.teardown(() => s.close());
  const r = await intercept(s, message({ payload_type: 'logic_assertion', payload: { assertions: [{ claim: 'p', negated: false }] } }));
  const { claims } = decodeJwt(r.body.attestation_jwt);
  t.equal(claims.exp - claims.iat, 42);
});
