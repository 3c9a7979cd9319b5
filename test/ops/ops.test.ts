import t from 'tap';
import health from '../../plugins/health/index.js';
import audit, { type AuditEntry } from '../../plugins/audit/index.js';
import { entryKey } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import ops from '../../plugins/ops/index.js';
import { createAuthPlugin, type ApiKeys } from '../../plugins/auth/index.js';
import { startServer, builtinsWithoutEngines } from '../helpers/server.js';
import { bearer, createKey, tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test('metrics: operators by user id only; tenants read their own', async (t) => {
  const dataDir = tempDir(t, 'pg-ops-');
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], dataDir, config: { auth: { anonymous_rate_per_minute: 100 } } });
  const op = await tenant(s, ['verify:read']);
  const other = await tenant(s);
  t.equal((await s.request('GET', '/metrics', { apiKey: other.key })).status, 403, 'unset operator list: nobody, not even admin:all owners');
  t.equal((await s.request('GET', '/metrics/prometheus', { apiKey: other.key })).status, 403);
  await s.close();
  const s2 = await startServer({
    plugins: [...builtinsWithoutEngines, verificationTestPlugin],
    dataDir,
    config: { auth: { metrics_operator_user_ids: [op.user.id] } },
  });
  t.teardown(() => s2.close());
  for (const o of ['verified', 'blocked', 'verified']) await s2.request('POST', '/test/verify', { apiKey: other.key, body: { outcome: o } });
  await s2.request('POST', '/test/verify', { apiKey: op.key, body: { outcome: 'unverifiable' } });

  const m = await s2.request('GET', '/metrics', { apiKey: op.key });
  t.equal(m.status, 200);
  const row = m.body.tenants.find((x: { org_id: string }) => x.org_id === other.orgId);
  // each tenant's key creation is an administrative entry
  t.same(row.last_24h, { verified: 2, blocked: 1, unverifiable: 0, admin: 1, refused: 0 });
  t.equal(row.entries_total, 4);
  t.equal(m.body.totals.entries_total, 6);
  t.equal((await s2.request('GET', '/metrics', { apiKey: other.key })).status, 403, 'owner with admin:all is not an operator');

  const p = await s2.request('GET', '/metrics/prometheus', { apiKey: op.key });
  t.equal(p.status, 200);
  t.match(p.headers.get('content-type'), /^text\/plain/);
  t.match(p.text, /svc_verifications_total\{engine="verify",status="verified",admission="none"\} 2/);
  t.match(p.text, /svc_verifications_total\{engine="verify",status="blocked",admission="none"\} 1/);
  t.match(p.text, /svc_http_request_duration_seconds_bucket/);
  t.notOk(p.text.includes(other.orgId), 'no tenant id label');

  const own = await s2.request('GET', `/metrics/${other.orgId}`, { apiKey: other.key });
  t.equal(own.status, 200);
  t.same(own.body.last_24h, { verified: 2, blocked: 1, unverifiable: 0, admin: 1, refused: 0 });
  t.equal(own.body.active_api_keys, 1);
  t.equal((await s2.request('GET', `/metrics/${other.orgId}`, { apiKey: op.key })).status, 403, "another tenant's metrics");
});

t.test('SOC 2 report figures come from the store', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const a = await tenant(s);
  const b = await tenant(s);
  for (const o of ['verified', 'blocked', 'blocked', 'unverifiable']) await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: o } });
  await createKey(s, a.token, { name: 'second' });
  const r = await s.request('GET', `/admin/compliance/report/soc2/${a.orgId}`, { apiKey: a.key });
  t.equal(r.status, 200);
  // the two key creations are administrative entries
  t.same(r.body.figures, { verifications: 4, verified: 1, blocked: 2, unverifiable: 1, admin_actions: 2, active_api_keys: 2, auth_failures: 0, rate_limit_hits: 0 });
  t.same(r.body.chain_integrity, { ok: true, entries_checked: 6, first_break: null });
  t.same(r.body.controls.map((c: { status: string }) => c.status), ['pass', 'pass']);
  const past = await s.request('GET', `/admin/compliance/report/soc2/${a.orgId}?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`, { apiKey: a.key });
  t.equal(past.body.figures.verifications, 0, 'period filter');
  t.equal((await s.request('GET', `/admin/compliance/report/soc2/${b.orgId}`, { apiKey: a.key })).status, 403, 'other org');

  // seq 2 is the first 'blocked' verification (seq 0: key creation, seq 1: verified)
  await s.kernel.app.store.collection<AuditEntry>(AUDIT_COLLECTION).update(entryKey(a.orgId, 2), (e) => ({ ...e!, status: 'verified' }));
  const broken = await s.request('GET', `/admin/compliance/report/soc2/${a.orgId}`, { apiKey: a.key });
  t.equal(broken.body.chain_integrity.ok, false);
  t.equal(broken.body.chain_integrity.first_break.seq, 2);
  t.equal(broken.body.controls[0].status, 'fail');

  const csv = await s.request('GET', '/admin/compliance/export/csv', { apiKey: a.key });
  t.equal(csv.status, 200);
  t.equal(csv.text.trim().split('\r\n').length, 7, 'header, four verifications, two key creations');
  t.notOk(csv.text.includes(b.orgId));
});

t.test('threat summary counts recorded security events; key rotation', async (t) => {
  let clock = Date.UTC(2030, 0, 1, 12);
  const auth = createAuthPlugin({ tierLimits: { free: { perMinute: 5, perDay: 100 }, pro: null, enterprise: null }, now: () => clock });
  const s = await startServer({ plugins: [health, auth, audit, ops, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const a = await tenant(s);
  const reader = (await createKey(s, a.token, { name: 'reader', scopes: ['attestation:read'] })).key;
  await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: 'blocked', constraint_id: 'sql.injection_detected' } });
  await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: 'blocked', constraint_id: 'math.mismatch' } });
  for (let i = 0; i < 3; i++) t.equal((await s.request('GET', '/logs', { apiKey: a.key })).status, 200);
  t.equal((await s.request('GET', '/logs', { apiKey: a.key })).status, 429);
  t.equal((await s.request('GET', '/logs', { apiKey: reader })).status, 403, 'wrong scope');
  await s.request('POST', '/auth/signin', { body: { email: a.user.email, password: 'wrong password' } });
  clock += 60_000; // limits are per organisation: the next minute gives its keys room again

  const a2 = (await createKey(s, a.token, { name: 'admin2', scopes: ['admin:all'] })).key;
  const th = await s.request('GET', `/admin/security/threats/${a.orgId}`, { apiKey: a2 });
  t.equal(th.status, 200);
  t.same(th.body.totals, {
    blocked_verifications: 2,
    injection_attempts_blocked: 1,
    rate_limit_hits: 1,
    auth_failures: 2,
    key_rotations: 0,
    key_revocations: 0,
  });
  t.equal(th.body.threat_score, 10 + 1 + 0.1 + 4);
  t.equal(th.body.threat_level, 'low');
  t.ok(th.body.recent.length >= 4);
  const b = await tenant(s);
  t.equal((await s.request('GET', `/admin/security/threats/${a.orgId}`, { apiKey: b.key })).status, 403);

  // rotation of another key: admin:all and every scope of the target (a weaker key is refused)
  const target = await createKey(s, a.token, { name: 'to-rotate', scopes: ['verify:read'] });
  t.equal((await s.request('POST', '/admin/keys/rotate', { apiKey: reader, body: { key_id: target.id } })).status, 403, 'a weaker key may not');
  const rotator = (await createKey(s, a.token, { name: 'rotator', scopes: ['verify:read', 'admin:all'] })).key;
  const rot = await s.request('POST', '/admin/keys/rotate', { apiKey: rotator, body: { key_id: target.id } });
  t.equal(rot.status, 201);
  t.equal(rot.body.rotated_from, target.id);
  t.equal(rot.body.name, 'to-rotate');
  t.same(rot.body.scopes, ['verify:read']);
  t.match(rot.body.key, /^svc_live_/);
  t.equal((await s.request('GET', '/logs', { apiKey: target.key })).status, 401, 'old key revoked at once');
  t.equal((await s.request('GET', '/logs', { apiKey: rot.body.key })).status, 200, 'new key works');
  t.equal((await s.request('POST', '/admin/keys/rotate', { apiKey: rotator, body: { key_id: target.id } })).status, 404, 'already rotated');
  t.equal((await s.request('POST', '/admin/keys/rotate', { apiKey: b.key, body: { key_id: rot.body.id } })).status, 404, 'other org');
  const keys = await s.request('GET', '/auth/api-keys', { headers: bearer(a.token) });
  t.notOk(keys.body.keys.some((k: { id: string }) => k.id === target.id));

  // a member's key may rotate too (a new minute: the organisation's free-plan minute is spent by now)
  clock += 60_000;
  const svc = s.kernel.app.service('auth.keys')!;
  const member = await svc.create({ orgId: a.orgId, userId: a.user.id, role: 'member', name: 'member key', scopes: ['verify:read'] });
  const self = await s.request('POST', '/admin/keys/rotate', { apiKey: member.key, body: { key_id: member.record.id } });
  t.equal(self.status, 201, 'a member rotates its own key');

  const logs = await s.request('GET', '/audit/logs?limit=200', { headers: bearer(a.token) });
  const adminEntries = logs.body.logs.filter((l: { status: string; engine: string }) => l.status === 'admin' && l.engine === 'api_key.rotate');
  t.equal(adminEntries.length, 2, 'rotations are in the audit chain');
  clock += 60_000;
  const th2 = await s.request('GET', `/admin/security/threats/${a.orgId}`, { apiKey: a2 });
  t.equal(th2.body.totals.key_rotations, 2);
});
