import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { startReplica } from '../helpers/replica.js';
import { TEST_SECRETS, type TestServer } from '../helpers/server.js';
import { tenant } from '../helpers/tenancy.js';
import { spanAttr, startOtlpReceiver } from '../helpers/otlp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `proofgate start` as an operator runs it, with the standard OTEL_EXPORTER_OTLP_ENDPOINT: a
 * verification continues the caller's trace and the export reaches the collector.
 */
t.test('proofgate start exports the request and engine spans of a /verify/math call', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const replica = await startReplica({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key,
    SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret,
    SVC_AUDIT_SECRET_KEY: TEST_SECRETS.audit_secret_key,
    SVC_A2A_DEPLOYMENT_ID: 'tracing-test',
    SVC_A2A_SIGNING_KEY_PEM: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  t.teardown(() => replica.stop());
  await waitFor(async () => (await replica.request('GET', '/readyz')).status === 200, { what: 'the sidecar to be ready', timeoutMs: 120_000, everyMs: 50 });
  // the helpers speak to anything with a TestServer's request()
  const org = await tenant(replica as unknown as TestServer, ['verify:read']);
  const trace = '5bf92f3577b34da6a3ce929d0e0e4736';
  const r = await replica.request('POST', '/verify/math', { apiKey: org.key, body: { expression: '2+2=4' }, headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
  t.equal(r.status, 200, r.text);
  const server = await waitFor(() => otlp.spans.find((x) => x.traceId === trace && x.kind === 2), { what: 'the server span' });
  t.equal(server.name, 'POST /verify/math');
  t.equal(spanAttr(server, 'http.route'), '/verify/math');
  t.equal(Number(spanAttr(server, 'http.response.status_code')), 200);
  const engine = await waitFor(() => otlp.spans.find((x) => x.traceId === trace && x.name === 'engine math'), { what: 'the engine span' });
  t.equal(engine.parentSpanId, server.spanId);
  t.ok(otlp.exports.every((e) => e.startsWith('POST /v1/traces application/json')), 'OTLP/HTTP JSON to the standard path');
});
