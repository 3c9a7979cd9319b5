import t from 'tap';
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import { entryKey } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { CHECKPOINT_COLLECTION, Checkpointer, type Checkpoint, type CheckpointSigner } from '../../plugins/audit/checkpoint.js';
import { pruneAudit } from '../../plugins/audit/retention.js';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { runCli } from './fixtures/cli.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const SECRET = TEST_SECRETS.audit_secret_key;
const silent = pino({ level: 'silent' });
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'verified',
  engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

async function testSigner(): Promise<CheckpointSigner & { thumbprint: string }> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = await exportJWK(publicKey);
  const kid = 'did:svc:node:staging#test';
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return {
    kid,
    publicJwk: { ...jwk, kid, alg: 'ES256', use: 'sig' },
    thumbprint: await calculateJwkThumbprint(jwk, 'sha256'),
    sign(typ, payload) {
      const input = `${b64({ alg: 'ES256', typ, kid })}.${b64(payload)}`;
      return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    },
  };
}

/** the entries of every export file in `dir` (the header and checkpoint lines left out) */
function exportedEntries(dir: string): Array<{ org_id: string; seq: number }> {
  return readdirSync(dir)
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
    .map((l) => JSON.parse(l))
    .filter((v) => typeof v.log_id === 'string');
}

function tmpDir(t: { teardown(fn: () => unknown): void }) {
  const dir = tempDir(t, 'pg-cp-');
  return dir;
}

t.test('the server checkpoints heads at shutdown; audit verify reports a chain truncated after it', async (t) => {
  const dir = tempDir(t, 'pg-cp-');
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], dataDir: dir });
  const tn = await tenant(s);
  for (let i = 0; i < 5; i++) t.equal((await s.request('POST', '/test/verify', { apiKey: tn.key, body: { outcome: 'verified' } })).status, 200);
  await s.close();

  const ok = await runCli(['audit', 'verify', '--data-dir', dir]);
  t.equal(ok.code, 0, ok.stdout + ok.stderr);
  const stats = await runCli(['store', 'stats', '--json', '--data-dir', dir]);
  t.equal(stats.code, 0, stats.stderr);
  const sizes = JSON.parse(stats.stdout) as { file_bytes: number; collections: Array<{ name: string; entries: number; bytes: number }> };
  t.ok(sizes.file_bytes > 0);
  t.ok(sizes.collections.find((c) => c.name === AUDIT_COLLECTION)!.entries >= 5, 'store stats lists the audit entries');
  t.ok(sizes.collections.find((c) => c.name === CHECKPOINT_COLLECTION)!.bytes > 0);

  // remove the newest entry of the tenant's chain: the remaining chain still links and HMACs correctly
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  const col = store.collection<unknown>(AUDIT_COLLECTION);
  const last = await col.list({ prefix: `${tn.orgId}/`, reverse: true, limit: 1 });
  const cp = (await store.collection<Checkpoint>(CHECKPOINT_COLLECTION).list({ prefix: `${tn.orgId}/`, reverse: true, limit: 1 }))[0].value;
  t.equal(cp.reason, 'shutdown');
  t.equal(cp.seq, (last[0].value as { seq: number }).seq, 'the shutdown checkpoint names the last head');
  await col.delete(last[0].key);
  await store.close();

  const bad = await runCli(['audit', 'verify', '--data-dir', dir]);
  t.equal(bad.code, 1, bad.stdout + bad.stderr);
  t.match(bad.stdout, new RegExp(`TRUNCATED org=${tn.orgId} seq=${cp.seq}: truncated after the checkpoint`));

  // pinning: the stored key must be the operator's
  const tp = await calculateJwkThumbprint(cp.public_jwk as JWK, 'sha256');
  const wrongPin = await runCli(['audit', 'verify', '--data-dir', dir, '--org', tn.orgId, '--pin', 'x'.repeat(43)]);
  t.match(wrongPin.stdout, /is not pinned/);
  // base64url: one thumbprint in 64 starts with a dash, which parseArgs alone reads as an option
  const dashPin = await runCli(['audit', 'verify', '--data-dir', dir, '--org', tn.orgId, '--pin', `-${'x'.repeat(42)}`, '--pin', `-${'y'.repeat(42)}`]);
  t.equal(dashPin.code, 1, `a thumbprint starting with a dash is a pin, not a usage error: ${dashPin.stderr}`);
  t.match(dashPin.stdout, /is not pinned/);
  t.equal((await runCli(['audit', 'verify', '--data-dir', dir, '--pin', '-x'])).code, 2, 'a dash word that is no thumbprint is still an unknown option');
  const pinned = await runCli(['audit', 'verify', '--data-dir', dir, '--org', tn.orgId, '--pin', tp]);
  t.match(pinned.stdout, /truncated after the checkpoint/, 'with the right pin the truncation itself is reported');
});

t.test('checkpoints are written on every tick of an interval of at most a minute, only for heads that moved', async (t) => {
  const dir = tempDir(t, 'pg-cp-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  t.teardown(() => store.close());
  const chain = new AuditChain(store, SECRET);
  const signer = await testSigner();
  let tick: (() => void) | null = null;
  let interval = 0;
  let clock = new Date('2026-01-01T00:00:00Z');
  const cps = new Checkpointer(store, chain, signer, silent, () => clock, (fn, ms) => {
    tick = fn;
    interval = ms;
    return () => (tick = null);
  });
  cps.start(60);
  t.ok(interval > 0 && interval <= 60_000, `interval ${interval} ms`);
  await chain.append('org_a', fields(0));
  await chain.append('org_b', fields(1));
  t.equal(await cps.checkpoint('periodic'), 2);
  t.equal(await cps.checkpoint('periodic'), 0, 'unchanged heads are not checkpointed again');
  await chain.append('org_a', fields(2));
  clock = new Date('2026-01-01T00:01:00Z');
  tick!();
  const col = store.collection<Checkpoint>(CHECKPOINT_COLLECTION);
  // the tick's write is async: wait for it by its effect, not by time
  await waitFor(async () => (await col.count()) >= 3, { what: 'the tick to write its checkpoint' });
  const newest = (await col.list({ prefix: 'org_a/', reverse: true, limit: 1 }))[0].value;
  t.match(newest, { org_id: 'org_a', seq: 1, reason: 'periodic', created_at: '2026-01-01T00:01:00.000Z', kid: signer.kid });
  await chain.append('org_b', fields(3));
  await cps.stop();
  t.equal(tick, null, 'the timer is cancelled');
  t.match((await col.list({ prefix: 'org_b/', reverse: true, limit: 1 }))[0].value, { seq: 1, reason: 'shutdown' });
});

t.test('a forged or altered checkpoint is reported', async (t) => {
  const dir = tempDir(t, 'pg-cp-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  const chain = new AuditChain(store, SECRET);
  for (let i = 0; i < 3; i++) await chain.append('org_a', fields(i));
  const cps = new Checkpointer(store, chain, await testSigner(), silent);
  await cps.checkpoint('periodic');
  const col = store.collection<Checkpoint>(CHECKPOINT_COLLECTION);
  const [{ key, value }] = await col.list({ prefix: 'org_a/' });
  // claim a later head than the chain has, without the key: the signature no longer matches
  await col.put(key, { ...value, seq: 7 });
  await store.close();
  const r = await runCli(['audit', 'verify', '--data-dir', dir]);
  t.equal(r.code, 1);
  t.match(r.stdout, /differs from its signed statement/);
});

t.test('retention exports, checkpoints and prunes old entries; audit verify starts from the prune checkpoint', async (t) => {
  const dir = tempDir(t, 'pg-cp-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  let clock = new Date('2026-01-01T00:00:00Z');
  const chain = new AuditChain(store, SECRET, 20, 512, () => clock);
  for (let i = 0; i < 25; i++) await chain.append('org_a', fields(i));
  for (let i = 0; i < 3; i++) await chain.append('org_b', fields(i));
  clock = new Date('2026-01-20T00:00:00Z');
  for (let i = 0; i < 4; i++) await chain.append('org_a', fields(100 + i));
  const signer = await testSigner();
  const exportDir = join(dir, 'export');
  const pruned = await pruneAudit({ store, chain, signer, secret: SECRET, log: silent, retentionDays: 7, exportDir, now: () => clock, batch: 10 });
  t.equal(pruned, 25 + 2, 'old entries pruned, but never the head of a chain (org_b keeps its last)');
  const col = store.collection<unknown>(AUDIT_COLLECTION);
  t.equal(await col.count({ prefix: 'org_a/' }), 4);
  t.equal(await col.count({ prefix: 'org_b/' }), 1);
  t.equal(exportedEntries(exportDir).length, 27, 'every pruned entry was exported first');
  // the chain continues after a prune
  t.equal((await chain.append('org_a', fields(200))).seq, 29);
  await store.close();

  const ok = await runCli(['audit', 'verify', '--data-dir', dir]);
  t.equal(ok.code, 0, ok.stdout + ok.stderr);
  t.match(ok.stdout, /OK: 6 entries in 2 chain\(s\) verified \(2 starting at a prune checkpoint\)/);

  // without its anchor the pruned chain does not verify
  const s2 = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  await s2.collection(CHECKPOINT_COLLECTION).delete(`org_a/${String(24).padStart(12, '0')}`);
  t.equal(await s2.collection(AUDIT_COLLECTION).get(entryKey('org_a', 24)), undefined);
  await s2.close();
  const broken = await runCli(['audit', 'verify', '--data-dir', dir]);
  t.equal(broken.code, 1);
  t.match(broken.stdout, /BROKEN org=org_a seq=0 .*entry 0 is missing/);
});

t.test('a malformed entry stops retention for its own chain only (nothing of it is pruned); a new export directory is made and synced', async (t) => {
  const dir = tempDir(t, 'pg-cp-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  t.teardown(() => store.close());
  let clock = new Date('2026-01-01T00:00:00Z');
  const chain = new AuditChain(store, SECRET, 20, 512, () => clock);
  // org_a sorts first: before the fix its malformed entry threw and org_b was never reached
  for (let i = 0; i < 10; i++) await chain.append('org_a', fields(i));
  for (let i = 0; i < 10; i++) await chain.append('org_b', fields(i));
  clock = new Date('2026-01-20T00:00:00Z');
  await chain.append('org_a', fields(100));
  await chain.append('org_b', fields(100));
  await store.collection(AUDIT_COLLECTION).put(entryKey('org_a', 4), { seq: 4, junk: true });
  const exportDir = join(dir, 'new', 'nested', 'export');
  const pruned = await pruneAudit({ store, chain, signer: await testSigner(), secret: SECRET, log: silent, retentionDays: 7, exportDir, now: () => clock, batch: 3 });
  const col = store.collection<unknown>(AUDIT_COLLECTION);
  t.equal(await col.count({ prefix: 'org_b/' }), 1, 'org_b, after the malformed chain, is pruned to its head');
  const keptA = (await col.list({ prefix: 'org_a/' })).map((e) => e.key.slice(e.key.lastIndexOf('/') + 1)).map(Number);
  // the prefix before it verifies, but not its link to the first entry that would stay: the gate keeps the whole chain
  t.same(keptA, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'org_a keeps every entry');
  t.equal(pruned, 10);
  t.same(exportedEntries(exportDir).map((e) => e.org_id), Array(10).fill('org_b'), 'every pruned entry is in the export, in the directories retention created');
});

t.test('only a prune checkpoint anchors a chain: deleting the oldest entries up to a periodic checkpoint is reported', async (t) => {
  const dir = tempDir(t, 'pg-cp-');
  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  const chain = new AuditChain(store, SECRET);
  const signer = await testSigner();
  const cps = new Checkpointer(store, chain, signer, silent);
  for (let i = 0; i < 3; i++) await chain.append('org_a', fields(i));
  t.equal(await cps.checkpoint('periodic'), 1, 'a periodic checkpoint at seq 2');
  for (let i = 3; i < 5; i++) await chain.append('org_a', fields(i));
  await cps.stop();
  // no retention ran: remove the three oldest entries, the ones that periodic checkpoint covers
  const col = store.collection<unknown>(AUDIT_COLLECTION);
  for (let seq = 0; seq < 3; seq++) await col.delete(entryKey('org_a', seq));
  await store.close();

  // even with the operator's key pinned: the checkpoint is genuine, but nothing was pruned
  const r = await runCli(['audit', 'verify', '--data-dir', dir, '--pin', signer.thumbprint]);
  t.equal(r.code, 1, r.stdout + r.stderr);
  t.match(r.stdout, /BROKEN org=org_a seq=0 .*entry 0 is missing/);
});
