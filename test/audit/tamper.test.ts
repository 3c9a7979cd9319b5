import t from 'tap';
import { sha256Ref } from '../../core/json/canonical.js';
import { type AuditEntry } from '../../plugins/audit/index.js';
import { entryKey, legacyPayload, logIdOf } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { hmacSha256Hex } from '../../core/json/canonical.js';
import { startServer, TEST_SECRETS, type TestServer, builtinsWithoutEngines } from '../helpers/server.js';
import { tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { runCli } from './fixtures/cli.js';

/**
 * Each kind of tampering is applied to its own organisation's chain and must be detected both by
 * GET /admin/compliance/verify/{log_id} and by `proofgate audit verify --org`.
 */
t.test('tampering is detected by the admin route and the CLI', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const col = s.kernel.app.store.collection<AuditEntry>(AUDIT_COLLECTION);

  async function chainOf(n: number) {
    const tn = await tenant(s);
    // seq 0 is the creation of the tenant's key (an administrative entry): ids[k] is the entry at seq k
    const ids: string[] = [logIdOf(tn.orgId, 0)];
    for (let i = 1; i < n; i++) {
      const r = await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: i % 2 ? 'blocked' : 'verified' } });
      ids.push(r.headers.get('x-audit-log-id')!);
    }
    return { ...tn, ids };
  }
  const verify = (s: TestServer, key: string, id: string) => s.request('GET', `/admin/compliance/verify/${id}`, { apiKey: key });
  const cli = (org: string) => runCli(['audit', 'verify', '--org', org, '--data-dir', s.dataDir]);

  const intact = await chainOf(4);
  for (const id of intact.ids) {
    const r = await verify(s, intact.key, id);
    t.equal(r.status, 200);
    t.same(r.body.checks, { payload_hash: { ok: true, form: 'current' }, hmac: { ok: true }, chain: { ok: true, detail: null } });
    t.equal(r.body.valid, true);
  }
  const ok = await cli(intact.orgId);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /^OK: 4 entries in 1 chain/);

  // 1. edited payload
  const edited = await chainOf(4);
  await col.update(entryKey(edited.orgId, 2), (e) => ({ ...e!, status: e!.status === 'verified' ? 'blocked' : 'verified' }));
  const r1 = await verify(s, edited.key, edited.ids[2]);
  t.equal(r1.body.valid, false);
  t.equal(r1.body.checks.payload_hash.ok, false);
  t.equal(r1.body.checks.hmac.ok, true, 'the checks are independent');
  const c1 = await cli(edited.orgId);
  t.equal(c1.code, 1);
  t.match(c1.stdout, /BROKEN .* seq=2 .*payload hash mismatch/);

  // 2. forged HMAC
  const forged = await chainOf(4);
  await col.update(entryKey(forged.orgId, 1), (e) => ({ ...e!, hmac: 'f'.repeat(64) }));
  const r2 = await verify(s, forged.key, forged.ids[1]);
  t.equal(r2.body.valid, false);
  t.same([r2.body.checks.payload_hash.ok, r2.body.checks.hmac.ok, r2.body.checks.chain.ok], [true, false, true]);
  const c2 = await cli(forged.orgId);
  t.equal(c2.code, 1);
  t.match(c2.stdout, /seq=1 .*HMAC mismatch/);

  // 3. deleted entry
  const deleted = await chainOf(4);
  await col.delete(entryKey(deleted.orgId, 2));
  t.equal((await verify(s, deleted.key, deleted.ids[2])).status, 404);
  const r3 = await verify(s, deleted.key, deleted.ids[3]);
  t.equal(r3.body.valid, false);
  t.equal(r3.body.checks.chain.ok, false);
  t.match(r3.body.checks.chain.detail, /previous entry is missing/);
  const c3 = await cli(deleted.orgId);
  t.equal(c3.code, 1);
  t.match(c3.stdout, /seq=2 .*missing/);

  // 4. reordered entries (values swapped between positions 1 and 2)
  const reordered = await chainOf(4);
  const e1 = (await col.get(entryKey(reordered.orgId, 1)))!;
  const e2 = (await col.get(entryKey(reordered.orgId, 2)))!;
  await col.put(entryKey(reordered.orgId, 1), e2);
  await col.put(entryKey(reordered.orgId, 2), e1);
  for (const id of [reordered.ids[1], reordered.ids[2]]) {
    const r = await verify(s, reordered.key, id);
    t.equal(r.body.valid, false);
    t.equal(r.body.checks.chain.ok, false);
  }
  const c4 = await cli(reordered.orgId);
  t.equal(c4.code, 1);
  t.match(c4.stdout, /seq=1 /);

  // 5. a malformed stored payload fails closed with a security error
  const malformed = await chainOf(3);
  await col.update(entryKey(malformed.orgId, 1), (e) => ({ ...e!, seq: 'one' as unknown as number }));
  const r5 = await verify(s, malformed.key, malformed.ids[1]);
  t.equal(r5.status, 500);
  t.equal(r5.body.code, 'audit_integrity_error');
  t.equal(r5.body.constraint_id, 'audit.payload_malformed');
  t.equal((await verify(s, malformed.key, malformed.ids[2])).status, 500, 'its successor cannot be vouched for either');
  const c5 = await cli(malformed.orgId);
  t.equal(c5.code, 1);
  t.match(c5.stdout, /malformed/);

  // the whole store: the CLI stops at the first broken chain
  const all = await runCli(['audit', 'verify', '--data-dir', s.dataDir]);
  t.equal(all.code, 1);

  // other organisations' entries are not visible to the admin route
  t.equal((await verify(s, intact.key, edited.ids[0])).status, 404);
});

t.test('the legacy canonical payload is accepted', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const tn = await tenant(s);
  const ids = [];
  for (let i = 0; i < 2; i++) ids.push((await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } })).headers.get('x-audit-log-id')!);
  const col = s.kernel.app.store.collection<AuditEntry>(AUDIT_COLLECTION);
  // rewrite the last entry (seq 0 is the key creation) as the pre-7.2 logger would have sealed it (no v, no raw_llm_output)
  await col.update(entryKey(tn.orgId, 2), (e) => {
    const legacy = { ...e!, raw_llm_output: null };
    legacy.payload_hash = sha256Ref(legacyPayload(legacy));
    legacy.hmac = hmacSha256Hex(TEST_SECRETS.audit_secret_key, legacy.payload_hash);
    return legacy;
  });
  const r = await s.request('GET', `/admin/compliance/verify/${ids[1]}`, { apiKey: tn.key });
  t.equal(r.body.valid, true);
  t.equal(r.body.checks.payload_hash.form, 'legacy');
  const c = await runCli(['audit', 'verify', '--org', tn.orgId, '--data-dir', s.dataDir]);
  t.equal(c.code, 0, c.stdout);
});

t.test('CLI usage', async (t) => {
  const help = await runCli(['audit', 'verify', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--data-dir DIR/);
  const top = await runCli(['--help']);
  t.match(top.stdout, /audit verify/);
  const missing = await runCli(['audit', 'verify', '--data-dir', '/nonexistent/pg-data']);
  t.equal(missing.code, 2);
  const noSecret = await runCli(['audit', 'verify', '--data-dir', '/tmp'], { SVC_AUDIT_SECRET_KEY: '' });
  t.equal(noSecret.code, 2);
});
