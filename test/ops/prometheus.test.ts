import t, { type Test } from 'tap';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import audit from '../../plugins/audit/index.js';
import ops from '../../plugins/ops/index.js';
import code from '../../plugins/engines/code/index.js';
import { startHarness } from '../helpers/attestation/harness.js';
import { P256_PEM } from '../helpers/attestation/fixtures.js';
import { sendRequest, startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';

/**
 * Metrics by convention (issue 42), through both scrape surfaces: the metrics listener and the spec's
 * operator route. Default process/Node series keep prom-client's own names, proofgate's carry svc_;
 * the verdict counter separates truth (status) from policy (admission); OpenMetrics when asked.
 */
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const OM_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** families declared by `# TYPE`, after checking every sample line against the OpenMetrics suffix rules */
function checkOpenMetrics(t: Test, body: string): Map<string, string> {
  t.ok(body.endsWith('\n# EOF\n'), 'ends with # EOF');
  const families = new Map<string, string>();
  const suffixes: Record<string, string[]> = { counter: ['_total', '_created'], gauge: [''], histogram: ['_bucket', '_sum', '_count', '_created'], summary: ['', '_sum', '_count', '_created'] };
  const problems: string[] = [];
  let family = '';
  for (const line of body.split('\n').slice(0, -2)) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      if (families.has(type[1])) problems.push(`${type[1]} declared twice`);
      families.set(type[1], type[2]);
      family = type[1];
    } else if (line === '') problems.push('a blank line');
    else if (!line.startsWith('#')) {
      const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '';
      const allowed = (suffixes[families.get(family) ?? ''] ?? []).map((s) => family + s);
      if (!allowed.includes(name)) problems.push(`${name} is not a sample of the ${families.get(family)} family ${family}`);
    }
  }
  t.same(problems, [], 'every line is a well-formed OpenMetrics line of its family');
  return families;
}

t.test('GET /metrics: unprefixed defaults, svc_ series, status and admission apart, OpenMetrics on request', async (t) => {
  const s = await startServer({
    plugins: [testAuthPlugin(), audit, ops, code],
    config: { metrics: { port: 0 }, auth: { metrics_operator_user_ids: ['user-test'] }, workers: { threads: 1, task_timeout_ms: 10_000 } },
  });
  t.teardown(() => s.close());
  const listener = s.kernel.app.service('ops.metrics_listener')!;
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const scrape = (accept?: string) => sendRequest(base, 'GET', '/metrics', accept ? { headers: { accept } } : {});

  const unsafe = await s.request('POST', '/verify/code', { body: { code: "import os\nos.system('rm -rf /tmp/' + name)\n" }, apiKey: TEST_API_KEY });
  t.match(unsafe.body, { status: 'VERIFIED', admission: 'BLOCKED' }, 'proven-unsafe code: the proof holds, admission blocks');
  const safe = await s.request('POST', '/verify/code', { body: { code: 'const add = (a, b) => a + b;', language: 'javascript' }, apiKey: TEST_API_KEY });
  t.match(safe.body, { status: 'VERIFIED', admission: 'ADMIT' });

  const plain = await scrape();
  t.equal(plain.status, 200);
  t.equal(plain.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.equal(plain.headers.get('vary'), 'Accept');
  t.match(plain.text, /^svc_verifications_total\{engine="code",status="verified",admission="blocked"\} 1$/m, 'blocked code is counted as blocked by admission');
  t.match(plain.text, /^svc_verifications_total\{engine="code",status="verified",admission="admit"\} 1$/m);
  t.notMatch(plain.text, /^svc_verifications_total\{[^}]*status="verified"[^}]*\} 2$/m, 'never one "verified" series holding both');
  t.match(plain.text, /^process_cpu_seconds_total /m, 'the stock name of the default process series');
  t.match(plain.text, /^process_resident_memory_bytes /m);
  t.match(plain.text, /^nodejs_eventloop_lag_seconds /m);
  t.notMatch(plain.text, /svc_(process|nodejs)_/, 'no svc_ on the defaults');
  t.match(plain.text, /^svc_audit_entries_total 2$/m, 'both verdicts audited, read from the chain at scrape time');
  t.match(plain.text, /^svc_audit_commits_total [12]$/m, 'in one or two group commits');
  const types = [...plain.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => ({ name: m[1], type: m[2] }));
  t.ok(types.length > 10);
  t.same(types.filter((n) => !/^(svc|process|nodejs)_/.test(n.name)), [], "proofgate's own series under svc_, the rest prom-client's defaults");
  t.same(types.filter((n) => n.type === 'counter' && !n.name.endsWith('_total')), [], 'counters end in _total');

  const om = await scrape(PROMETHEUS_ACCEPT);
  t.equal(om.status, 200);
  t.equal(om.headers.get('content-type'), OM_TYPE);
  t.equal(om.headers.get('vary'), 'Accept');
  const families = checkOpenMetrics(t, om.text);
  t.equal(families.get('svc_verifications'), 'counter', 'the counter family is named without _total');
  t.equal(families.get('process_cpu_seconds'), 'counter');
  t.equal(families.get('svc_http_request_duration_seconds'), 'histogram');
  t.match(om.text, /^svc_verifications_total\{engine="code",status="verified",admission="blocked"\} 1$/m);

  // prom-client renames a counter in place when it renders OpenMetrics: the text format must not lose _total after it
  const [again, omAgain] = await Promise.all([scrape(), scrape(PROMETHEUS_ACCEPT)]);
  t.match(again.text, /^# TYPE svc_verifications_total counter$/m, 'text format after an OpenMetrics scrape: _total kept');
  t.match(again.text, /^# TYPE process_cpu_seconds_total counter$/m);
  t.notMatch(again.text, /# EOF/);
  checkOpenMetrics(t, omAgain.text);

  for (const accept of ['*/*', 'text/plain', 'application/openmetrics-text;version=0.0.1', 'application/openmetrics-text;q=0', 'x'.repeat(8000)]) {
    const r = await scrape(accept);
    t.equal(r.status, 200, `Accept ${accept.slice(0, 40)}: served, never refused`);
    t.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/, `Accept ${accept.slice(0, 40)}: the text format`);
  }

  // the spec's operator route negotiates the same way
  const route = await s.request('GET', '/metrics/prometheus', { apiKey: TEST_API_KEY, headers: { accept: PROMETHEUS_ACCEPT } });
  t.equal(route.status, 200);
  t.equal(route.headers.get('content-type'), OM_TYPE);
  t.equal(route.headers.get('vary'), 'Accept');
  checkOpenMetrics(t, route.text);
  const routePlain = await s.request('GET', '/metrics/prometheus', { apiKey: TEST_API_KEY });
  t.match(routePlain.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  t.equal((await s.request('GET', '/metrics/prometheus', { headers: { accept: PROMETHEUS_ACCEPT } })).status, 401, 'the Accept header grants nothing');
});

t.test('attestations issued and revoked are counted', async (t) => {
  const h = await startHarness({ plugins: [ops], config: { metrics: { port: 0 }, attestation: { key_continuity_policy: 'persistent', signing_key_pem: P256_PEM } } });
  t.teardown(() => h.close());
  const port = (h.kernel.app.service('ops.metrics_listener')!.address() as AddressInfo).port;
  const scrape = async () => (await sendRequest(`http://127.0.0.1:${port}`, 'GET', '/metrics')).text;

  const a = await h.request('POST', '/test/attestable', { body: { expression: '2+2=4' } });
  const b = await h.request('POST', '/test/attestable', { body: { expression: '3+3=6' } });
  t.match(a.body.attestation_id, /^att_/);
  const refused = await h.request('POST', '/test/attestable', { body: { expression: '2*2', mode: 'unverifiable' } });
  t.notOk(refused.body.attestation, 'nothing to attest without a proof');
  for (let i = 0; i < 2; i++) t.equal((await h.request('POST', `/attestation/${b.body.attestation_id}/revoke`, { key: 'a-operator' })).status, 200);
  t.equal((await h.request('POST', `/attestation/${a.body.attestation_id}/revoke`, { key: 'b-operator' })).status, 404, "another organisation's operator revokes nothing");

  const text = await scrape();
  t.match(text, /^svc_attestations_total\{status="issued",code="none"\} 2$/m, 'an answer without a proof is not an issuance');
  t.match(text, /^svc_attestation_revocations_total 1$/m, 'a second revocation of the same attestation, or a refused one, is not counted');
});
