import t from 'tap';
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, type AuditEntry, type AuditFields } from '../../plugins/audit/index.js';
import { entryKey } from '../../plugins/audit/payload.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { CHECKPOINT_COLLECTION, checkpointKey, makeCheckpoint, type CheckpointSigner } from '../../plugins/audit/checkpoint.js';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { runCli } from './fixtures/cli.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

/**
 * Issue 38 item 4, as reported: entries older than the retention window are rewritten (blocked →
 * verified) and one is deleted, so `audit verify` says BROKEN; the server is then started with
 * retention 1 day. Before the gate it exported the doctored prefix, signed a prune checkpoint over
 * it and deleted it, and `audit verify` said OK: retention laundered the tampering.
 */
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'blocked',
  engine: 'math', http_status: 403, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

t.test('retention 1 day over a tampered prefix prunes nothing, raises the metric, and audit verify stays BROKEN', async (t) => {
  const dir = tempDir(t, 'pg-audit-launder-');
  const seed = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  let clock = new Date(Date.now() - 3 * 86_400_000);
  const chain = new AuditChain(seed, TEST_SECRETS.audit_secret_key, 20, 512, () => clock);
  for (let i = 0; i < 6; i++) await chain.append('org_bad', fields(i));
  for (let i = 0; i < 4; i++) await chain.append('org_good', fields(i));
  clock = new Date();
  await chain.append('org_bad', fields(6));
  await chain.append('org_good', fields(4));
  const col = seed.collection<AuditEntry>(AUDIT_COLLECTION);
  await col.update(entryKey('org_bad', 2), (e) => ({ ...e!, status: 'verified', http_status: 200 }));
  await col.delete(entryKey('org_bad', 4));
  await seed.close();

  const before = await runCli(['audit', 'verify', '--data-dir', dir, '--org', 'org_bad']);
  t.equal(before.code, 1, 'the tampering is visible before retention runs');

  const s = await startServer({ plugins: builtinsWithoutEngines, dataDir: dir, warmEngines: false, config: { audit: { retention_days: 1 } } });
  let closed = false;
  t.teardown(() => (closed ? undefined : s.close()));
  const entries = s.kernel.app.store.collection(AUDIT_COLLECTION);
  const refused = /svc_audit_prune_refused_total\{reason="payload_hash_mismatch"\} 1\b/;
  await waitFor(async () => refused.test((await s.kernel.app.metrics.text()).body), { what: 'the refused prune to be counted', timeoutMs: 15_000 });
  // the valid chain of the other organisation is pruned in the same sweep
  await waitFor(async () => (await entries.count({ prefix: 'org_good/' })) === 1, { what: 'org_good pruned to its head', timeoutMs: 15_000 });
  const kept = (await entries.list({ prefix: 'org_bad/' })).map((e) => (e.value as AuditEntry).seq);
  t.same(kept, [0, 1, 2, 3, 5, 6], 'nothing of the tampered chain was pruned');
  const exported = existsSync(join(dir, 'audit-export')) ? readdirSync(join(dir, 'audit-export')) : [];
  t.notOk(exported.some((f) => f.includes('org_bad')), 'nothing of it was exported under a checkpoint');
  closed = true;
  await s.close();

  const after = await runCli(['audit', 'verify', '--data-dir', dir, '--org', 'org_bad']);
  t.equal(after.code, 1, after.stdout + after.stderr);
  t.match(after.stdout, /BROKEN org=org_bad seq=2 .*payload hash mismatch/);
  const good = await runCli(['audit', 'verify', '--data-dir', dir, '--org', 'org_good']);
  t.equal(good.code, 0, good.stdout);
});

/** a signer of checkpoints with `key` (what the attestation plugin does with its key) */
async function signerOf(key: KeyObject): Promise<CheckpointSigner> {
  const jwk = await exportJWK(createPublicKey(key));
  const kid = 'did:svc:node:staging#key-1';
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return {
    kid,
    publicJwk: { ...jwk, kid, alg: 'ES256', use: 'sig' },
    sign(typ, payload) {
      const input = `${b64({ alg: 'ES256', typ, kid })}.${b64(payload)}`;
      return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    },
  };
}

t.test('with the persistent key, retention continues a chain only from a prune checkpoint of that key', async (t) => {
  const dir = tempDir(t, 'pg-audit-launder-');
  const serverKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const pem = serverKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const seed = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  let clock = new Date(Date.now() - 3 * 86_400_000);
  const chain = new AuditChain(seed, TEST_SECRETS.audit_secret_key, 20, 512, () => clock);
  for (const org of ['org_forged', 'org_pruned']) for (let i = 0; i < 6; i++) await chain.append(org, fields(i));
  clock = new Date();
  for (const org of ['org_forged', 'org_pruned']) await chain.append(org, fields(6));
  // both chains lose seq 0..2 behind a prune checkpoint at 2: one signed by the server's own key (an
  // earlier prune), one by a key of the tamperer's, over the right hash all the same
  const col = seed.collection<AuditEntry>(AUDIT_COLLECTION);
  for (const [org, key] of [['org_pruned', serverKey], ['org_forged', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey]] as const) {
    const at2 = (await col.get(entryKey(org, 2)))!;
    await seed.collection(CHECKPOINT_COLLECTION).put(checkpointKey(org, 2), makeCheckpoint(await signerOf(key), org, { seq: 2, hash: at2.payload_hash }, 'prune', clock));
    for (let seq = 0; seq <= 2; seq++) await col.delete(entryKey(org, seq));
  }
  await seed.close();

  const s = await startServer({
    plugins: builtinsWithoutEngines, dataDir: dir, warmEngines: false,
    config: { audit: { retention_days: 1 }, attestation: { key_continuity_policy: 'persistent', signing_key_pem: pem } },
  });
  let closed = false;
  t.teardown(() => (closed ? undefined : s.close()));
  const entries = s.kernel.app.store.collection(AUDIT_COLLECTION);
  await waitFor(async () => /svc_audit_prune_refused_total\{reason="no_prune_anchor"\} 1\b/.test((await s.kernel.app.metrics.text()).body), { what: 'the forged anchor to be refused', timeoutMs: 15_000 });
  await waitFor(async () => (await entries.count({ prefix: 'org_pruned/' })) === 1, { what: 'org_pruned pruned to its head', timeoutMs: 15_000 });
  t.same((await entries.list({ prefix: 'org_forged/' })).map((e) => (e.value as AuditEntry).seq), [3, 4, 5, 6], 'nothing after the forged anchor was pruned');
  closed = true;
  await s.close();

  const tp = await calculateJwkThumbprint(await exportJWK(createPublicKey(serverKey)), 'sha256');
  const forged = await runCli(['audit', 'verify', '--data-dir', dir, '--org', 'org_forged', '--pin', tp]);
  t.equal(forged.code, 1, forged.stdout + forged.stderr);
  t.match(forged.stdout, /BROKEN org=org_forged seq=0 .*entry 0 is missing/);
  const pruned = await runCli(['audit', 'verify', '--data-dir', dir, '--org', 'org_pruned', '--pin', tp]);
  t.equal(pruned.code, 0, pruned.stdout + pruned.stderr);
});
