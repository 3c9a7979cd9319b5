import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, entriesToCsv, type AuditFields } from '../../plugins/audit/index.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { walkChains } from '../../plugins/audit/verify.js';
import { neutralizeCell } from '../../plugins/audit/csv.js';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { bearer, signup, tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import type { ApiKeys } from '../../plugins/auth/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const SECRET = TEST_SECRETS.audit_secret_key;
const fields = (i: number): AuditFields => ({
  route: '/verify/math',
  method: 'POST',
  key_id: 'key_1',
  user_id: 'usr_1',
  request_hash: null,
  status: i % 3 === 0 ? 'blocked' : 'verified',
  engine: 'math',
  http_status: 200,
  proof_ref: null,
  constraint_id: null,
  raw_llm_output: i % 2 ? `output ${i}` : null,
});

t.test('concurrent appends: contiguous per org, two writers on one store never fork', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-chain-'));
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const a = new AuditChain(store, SECRET);
  const b = new AuditChain(store, SECRET); // a second "process": its own head cache
  const entries = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).append(i % 3 ? 'org_a' : 'org_b', fields(i))));
  const seqA = entries.filter((e) => e.org_id === 'org_a').map((e) => e.seq).sort((x, y) => x - y);
  t.same(seqA, Array.from({ length: seqA.length }, (_, i) => i), 'no gaps, no duplicates');
  const first = entries.find((e) => e.org_id === 'org_a' && e.seq === 0)!;
  t.equal(first.prev_hash, null);
  // interleave the writers again, each with a stale head
  for (let i = 0; i < 10; i++) await (i % 2 ? a : b).append('org_a', fields(i));
  const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET);
  t.equal(walk.broken, null);
  t.equal(walk.orgs, 2);
  t.equal(walk.entries, 70);
  const bad = await walkChains(store.collection(AUDIT_COLLECTION), 'another-secret-0123456789');
  t.match(bad.broken, { seq: 0, reason: 'HMAC mismatch' }, 'HMAC binds the secret');
});

t.test('verification routes fail closed without the audit secret', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], config: { secrets: { audit_secret_key: null } } });
  t.teardown(() => s.close());
  const acct = await signup(s);
  const created = await s.request('POST', '/auth/api-keys', { body: { name: 'k' }, headers: bearer(acct.token) });
  t.equal(created.status, 503, 'no administrative action that the audit chain cannot record');
  t.equal(created.body.code, 'audit_unavailable');
  // a key made behind the routes' back, to show the verification routes refuse too
  const keys = s.kernel.app.service('auth.keys')!;
  const made = await keys.create({ orgId: acct.user.org_id, userId: acct.user.id, role: 'owner', name: 'k', scopes: ['verify:read'] });
  const tn = { key: made.key };
  const r = await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } });
  t.equal(r.status, 503);
  t.equal(r.body.code, 'audit_unavailable');
  t.match(r.body.detail, /SVC_AUDIT_SECRET_KEY/);
  t.equal((await s.request('GET', '/readyz')).status, 503, 'not ready');
  t.equal((await s.request('GET', '/logs', { apiKey: tn.key })).status, 200, 'non-verification routes still work');
});

t.test('an unloadable chain head fails closed', async (t) => {
  // the tenant's key creation is the chain's first entry; a new process must load it as the head
  const dir = tempDir(t, 'pg-head-');
  const s1 = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], dataDir: dir });
  const tn = await tenant(s1);
  await s1.close();
  const raw = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  await raw.collection(AUDIT_COLLECTION).put(`${tn.orgId}/000000000000`, { garbage: true });
  await raw.close();
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], dataDir: dir });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } });
  t.equal(r.status, 503);
  t.match(r.body.detail, /audit chain cannot be loaded/);
});

t.test('audit read routes: JWT, org-scoped, filters, CSV export, /logs pagination', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const a = await tenant(s);
  const b = await tenant(s);
  const outcomes = ['verified', 'blocked', 'verified', 'unverifiable', 'blocked', 'verified'];
  for (const o of outcomes) {
    await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: o, constraint_id: o === 'blocked' ? '=HYPERLINK("x")' : undefined, llm: 'model said' } });
  }
  const bv = await s.request('POST', '/test/verify', { apiKey: b.key, body: { outcome: 'verified' } });
  const bLog = bv.headers.get('x-audit-log-id')!;

  const all = await s.request('GET', '/audit/logs', { headers: bearer(a.token) });
  t.equal(all.status, 200);
  // seq 0 is the creation of the tenant's key (an administrative entry), then the six verifications
  t.equal(all.body.count, 7);
  t.equal(all.body.logs[0].seq, 6, 'newest first');
  t.equal(all.body.logs[6].prev_hash, null);
  t.equal(all.body.logs[6].engine, 'api_key.create');
  t.equal(all.body.logs[0].prev_hash, all.body.logs[1].payload_hash, 'linked');
  t.equal(all.body.logs[0].raw_llm_output, 'model said');
  t.match(all.body.logs[0].request_hash, /^sha256:[0-9a-f]{64}$/);
  const blocked = await s.request('GET', '/audit/logs?status=blocked&limit=1', { headers: bearer(a.token) });
  t.equal(blocked.body.count, 1);
  t.equal(blocked.body.logs[0].status, 'blocked');
  t.equal(blocked.body.logs[0].http_status, 403);
  t.equal((await s.request('GET', '/audit/logs?limit=201', { headers: bearer(a.token) })).status, 400, 'max 200');
  t.equal((await s.request('GET', '/audit/logs?status=other', { headers: bearer(a.token) })).status, 400);
  t.equal((await s.request('GET', '/audit/logs', { apiKey: a.key })).status, 401, 'JWT required');

  const one = await s.request('GET', `/audit/logs/${all.body.logs[2].log_id}`, { headers: bearer(a.token) });
  t.equal(one.status, 200);
  t.equal(one.body.seq, 4);
  t.equal((await s.request('GET', `/audit/logs/${bLog}`, { headers: bearer(a.token) })).status, 404, "other org's entry");
  t.equal((await s.request('GET', `/audit/logs/${bLog}`, { headers: bearer(b.token) })).status, 200);

  const csv = await s.request('GET', '/audit/export', { headers: bearer(a.token) });
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  const lines = csv.text.trim().split('\r\n');
  t.equal(lines.length, 8, 'header + 7 rows');
  t.ok(lines[0].startsWith('log_id,org_id,seq'));
  t.ok(csv.text.includes(`"'=HYPERLINK(""x"")"`), 'formula neutralised');
  t.notOk(csv.text.includes(bLog), 'only own org');

  const p1 = await s.request('GET', '/logs?limit=4', { apiKey: a.key });
  t.equal(p1.body.logs.length, 4);
  t.ok(p1.body.next_cursor);
  const p2 = await s.request('GET', `/logs?limit=4&cursor=${p1.body.next_cursor}`, { apiKey: a.key });
  t.equal(p2.body.logs.length, 3);
  t.equal(p2.body.next_cursor, null);
  const ids = [...p1.body.logs, ...p2.body.logs].map((l: { log_id: string }) => l.log_id);
  t.equal(new Set(ids).size, 7, 'pages do not overlap');
  t.equal((await s.request('GET', `/logs?cursor=${bLog}`, { apiKey: a.key })).status, 400, "another org's cursor");
});

t.test('CSV cells that spreadsheets would execute are neutralised', async (t) => {
  for (const c of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) t.equal(neutralizeCell(c), `'${c}`);
  for (const c of ['sha256:ab', 'plain', '', 'a=b']) t.equal(neutralizeCell(c), c);
  t.equal(neutralizeCell(null), '');
  const csv = entriesToCsv([]);
  t.equal(csv.trim().split('\r\n').length, 1, 'header only');
});
