import t from 'tap';
import health from '../../plugins/health/index.js';
import audit from '../../plugins/audit/index.js';
import ops from '../../plugins/ops/index.js';
import { createAuthPlugin } from '../../plugins/auth/index.js';
import { probePlugin } from '../helpers/probe-plugin.js';
import { sendRequest, startServer } from '../helpers/server.js';
import { bearer, createKey, signup, tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

t.test('PATCH /admin/orgs/{org_id}: operators set plans and roles; names are checked', async (t) => {
  // one directory for both servers, made before either: it goes after the second has closed
  const dataDir = tempDir(t, 'proofgate-test-');
  const bootstrap = await startServer({ plugins: [health, createAuthPlugin()], dataDir });
  const op = await tenant(bootstrap, ['verify:read', 'admin:all']);
  await bootstrap.close();
  const s = await startServer({
    plugins: [health, createAuthPlugin(), audit, ops, verificationTestPlugin],
    dataDir,
    config: { auth: { operator_user_ids: [op.user.id], anonymous_rate_per_minute: 100 }, limits: { plans: { team: { per_minute: 7, per_day: 70 } } } },
  });
  t.teardown(() => s.close());
  const other = await tenant(s);
  const member = await signup(s);

  const patch = (key: string, org: string, body: unknown) => s.request('PATCH', `/admin/orgs/${org}`, { apiKey: key, body });
  const notAdmin = (await createKey(s, op.token, { name: 'ro', scopes: ['verify:read'] })).key;
  t.equal((await patch(notAdmin, other.orgId, { plan: 'pro' })).status, 403, 'an operator key without admin:all (decisions: /admin/* needs it)');
  const denied = await patch(other.key, other.orgId, { plan: 'enterprise' });
  t.equal(denied.status, 403, 'an owner with admin:all is not an operator');
  t.equal(denied.body.code, 'not_operator');

  const unknown = await patch(op.key, other.orgId, { plan: 'gold' });
  t.equal(unknown.status, 400);
  t.match(unknown.body.detail, /allowed: free, pro, enterprise, unlimited, team/);
  t.equal((await patch(op.key, 'org_nope', { plan: 'pro' })).status, 404);
  const foreign = await patch(op.key, other.orgId, { user_roles: { [member.user.id]: 'admin' } });
  t.equal(foreign.status, 400, 'a user of another organisation');
  t.equal((await patch(op.key, other.orgId, { user_roles: { [other.user.id]: 'boss' } })).status, 400, 'unknown role (schema)');
  t.equal((await patch(op.key, other.orgId, {})).status, 400, 'empty patch');

  const before = await s.request('POST', '/test/verify', { apiKey: other.key, body: {} });
  t.equal(before.headers.get('ratelimit-limit'), '60', 'free plan by default');
  const ok = await patch(op.key, other.orgId, { plan: 'team', user_roles: { [other.user.id]: 'admin' } });
  t.equal(ok.status, 200, ok.text);
  t.same(ok.body, { id: other.orgId, name: ok.body.name, plan: 'team', users: [{ id: other.user.id, email: other.user.email, role: 'admin' }] });
  const after = await s.request('POST', '/test/verify', { apiKey: other.key, body: {} });
  t.equal(after.headers.get('ratelimit-limit'), '7', 'the new plan applies at once');
  const me = await s.request('GET', '/auth/me', { headers: bearer(other.token) });
  t.equal(me.body.organization.tier, 'team');
  t.equal(me.body.role, 'admin');
  const logs = await s.request('GET', '/audit/logs?limit=50', { headers: bearer(op.token) });
  t.ok(logs.body.logs.some((l: { engine: string }) => l.engine === 'org.update'), 'the change is in the operator organisation audit chain');
});

t.test('Prometheus by convention: svc_ for our own series, token-guarded listener, engine histograms', async (t) => {
  const token = 'scrape-token-0123456789abcdef';
  const s = await startServer({
    plugins: [health, createAuthPlugin(), audit, ops, probePlugin()],
    config: { metrics: { token, port: 0 }, auth: { anonymous_rate_per_minute: 100 } },
  });
  t.teardown(() => s.close());
  const a = await tenant(s);
  t.equal((await s.request('GET', '/metrics/prometheus')).status, 401, 'the spec route: no credential');
  t.equal((await s.request('GET', '/metrics/prometheus', { headers: { authorization: `Bearer ${token}` } })).status, 401, 'the spec route takes an operator key, not the scrape token');
  t.equal((await s.request('GET', '/metrics/prometheus', { apiKey: a.key })).status, 403, 'a tenant key is not an operator');
  t.equal((await s.request('POST', '/probe/task/echo', { body: { v: 1 } })).status, 200);

  const listener = s.kernel.app.service('ops.metrics_listener')!;
  const port = (listener.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  t.equal((await sendRequest(base, 'GET', '/metrics')).status, 401, 'the token guards the listener when set');
  t.equal((await sendRequest(base, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
  const p = await sendRequest(base, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
  t.equal(p.status, 200);
  t.notMatch(p.text, /svc_(process|nodejs)_/, "prom-client's defaults keep their stock names");
  t.match(p.text, /^process_cpu_seconds_total /m);
  t.match(p.text, /^nodejs_eventloop_lag_seconds /m);
  const names = [...p.text.matchAll(/^# TYPE (\S+) (\S+)/gm)].map((m) => ({ name: m[1], type: m[2] }));
  t.ok(names.length > 10);
  for (const n of names) {
    t.match(n.name, /^(svc|process|nodejs)_/, `${n.name}: svc_ for proofgate's own series, else a prom-client default`);
    if (n.type === 'counter') t.ok(n.name.endsWith('_total'), `${n.name}: counters end in _total`);
    t.notMatch(n.name, /_(ms|milliseconds|kb|mb)(_|$)/, `${n.name}: base units`);
  }
  t.match(p.text, /svc_http_request_duration_seconds_bucket\{[^}]*route="\/probe\/task\/:fn"/, 'latency per route');
  t.match(p.text, /svc_engine_task_duration_seconds_bucket\{[^}]*engine="probe",fn="echo",outcome="ok"/, 'latency per engine');
  t.equal((await sendRequest(base, 'GET', '/logs')).status, 404, 'nothing but metrics on that port');
  const post = await sendRequest(base, 'POST', '/metrics');
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET, HEAD', 'the 405 names the methods the scrape path has');
});

t.test('the separate listener needs no credential when no token is set', async (t) => {
  const s = await startServer({ plugins: [health, ops], config: { metrics: { port: 0 } } });
  t.teardown(() => s.close());
  const port = (s.kernel.app.service('ops.metrics_listener')!.address() as AddressInfo).port;
  const r = await sendRequest(`http://127.0.0.1:${port}`, 'GET', '/metrics');
  t.equal(r.status, 200);
  t.match(r.text, /^# TYPE svc_http_requests_total counter/m);
  t.equal((await s.request('GET', '/metrics/prometheus')).status, 401, 'the main port still requires a credential');
});
