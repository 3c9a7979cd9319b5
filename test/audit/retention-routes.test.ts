import t from 'tap';
import { pino } from 'pino';
import { entryKey, logIdOf } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { pruneAudit } from '../../plugins/audit/retention.js';
import type { AuditChain } from '../../plugins/audit/index.js';
import { Checkpointer, type CheckpointSigner } from '../../plugins/audit/checkpoint.js';
import { startServer, builtinsWithoutEngines, type TestServer } from '../helpers/server.js';
import { tenant, verificationTestPlugin } from '../helpers/tenancy.js';

/** What the server's routes say about a chain that retention cut, and about one cut by hand. */

const silent = pino({ level: 'silent' });

/** Runs the server's retention as if `days` had passed: everything but the head is old enough. */
async function prune(s: TestServer, days = 10) {
  const app = s.kernel.app;
  return pruneAudit({
    store: app.store,
    chain: app.service('audit.chain')!,
    signer: app.service('attestation.signer')!,
    secret: app.config.secrets.audit_secret_key!,
    log: silent,
    retentionDays: 7,
    exportDir: `${s.dataDir}/audit-export`,
    now: () => new Date(Date.now() + days * 86_400_000),
  });
}

t.test('GET /admin/compliance/verify: the first entry after a retention prune links to the prune checkpoint', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const tn = await tenant(s);
  // seq 0 is the key's creation; seq 1..4 verifications
  for (let i = 0; i < 4; i++) t.equal((await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } })).status, 200);
  t.equal(await prune(s), 4, 'all but the head pruned');
  const first = await s.request('GET', `/admin/compliance/verify/${logIdOf(tn.orgId, 4)}`, { apiKey: tn.key });
  t.equal(first.status, 200);
  t.same(first.body.checks.chain, { ok: true, detail: null });
  t.equal(first.body.valid, true, 'retention is not tampering');
  const soc2 = await s.request('GET', `/admin/compliance/report/soc2/${tn.orgId}`, { apiKey: tn.key });
  t.equal(soc2.body.chain_integrity.ok, true, 'the report agrees');
});

t.test('GET /admin/compliance/verify: an entry whose predecessor was deleted without a prune checkpoint still fails', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const tn = await tenant(s);
  for (let i = 0; i < 3; i++) await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } });
  await s.kernel.app.store.collection(AUDIT_COLLECTION).delete(entryKey(tn.orgId, 1));
  const r = await s.request('GET', `/admin/compliance/verify/${logIdOf(tn.orgId, 2)}`, { apiKey: tn.key });
  t.equal(r.body.valid, false);
  t.match(r.body.checks.chain.detail, /previous entry is missing/);
});

t.test('SOC 2 report: a chain whose tail was deleted after a checkpoint fails CC7.2', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const app = s.kernel.app;
  const tn = await tenant(s);
  for (let i = 0; i < 4; i++) await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } });
  // what the server's timer does every interval: the head (seq 4) is signed
  const cps = new Checkpointer(app.store, app.service('audit.chain')!, app.service('attestation.signer')!, silent);
  t.equal(await cps.checkpoint('periodic'), 1);
  const report = () => s.request('GET', `/admin/compliance/report/soc2/${tn.orgId}`, { apiKey: tn.key });
  t.equal((await report()).body.chain_integrity.ok, true, 'intact before');
  // the two newest entries go: what is left still links and HMACs correctly
  for (const seq of [4, 3]) await app.store.collection(AUDIT_COLLECTION).delete(entryKey(tn.orgId, seq));
  const r = await report();
  t.equal(r.status, 200);
  t.equal(r.body.chain_integrity.ok, false);
  t.match(r.body.chain_integrity.first_break, { org_id: tn.orgId, seq: 4, log_id: logIdOf(tn.orgId, 4), reason: /truncated after the checkpoint/ });
  t.match(r.body.controls.find((c: { id: string }) => c.id === 'CC7.2-audit-trail-integrity'), { status: 'fail', evidence: /truncated/ });
});

t.test('GET /admin/compliance/verify and the SOC 2 report after a prune the gate refused: the tampered entry is still there and still fails', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin] });
  t.teardown(() => s.close());
  const tn = await tenant(s);
  for (let i = 0; i < 4; i++) await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'blocked' } });
  await s.kernel.app.store.collection<{ status: string }>(AUDIT_COLLECTION).update(entryKey(tn.orgId, 2), (e) => ({ ...e!, status: 'verified' }));
  t.equal(await prune(s), 0, 'nothing pruned');
  const r = await s.request('GET', `/admin/compliance/verify/${logIdOf(tn.orgId, 2)}`, { apiKey: tn.key });
  t.equal(r.status, 200);
  t.equal(r.body.valid, false);
  t.equal(r.body.checks.payload_hash.ok, false);
  const soc2 = await s.request('GET', `/admin/compliance/report/soc2/${tn.orgId}`, { apiKey: tn.key });
  t.equal(soc2.body.chain_integrity.ok, false);
  t.match(soc2.body.chain_integrity.first_break, { org_id: tn.orgId, seq: 2, reason: /payload hash mismatch/ });
});
