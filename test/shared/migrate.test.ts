import t from 'tap';
import { spawnSync } from 'node:child_process';
import { LmdbStore } from '../../core/store/lmdb.js';
import { PgStore } from '../../core/store/pg.js';
import { builtinCollections } from '../../sidecar/builtin.js';
import { AUDIT_COLLECTION, AuditChain } from '../../plugins/audit/index.js';
import { entryKey } from '../../plugins/audit/payload.js';
import { createTestDatabase, pgUnavailable } from '../helpers/pg.js';
import { CLI, sharedModeEnv, startReplica } from '../helpers/replica.js';
import { waitFor } from '../helpers/wait.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `proofgate migrate`: a sidecar's LMDB data directory moves into PostgreSQL; what the sidecar
 * wrote is served by a shared-mode replica afterwards (same API key, same audit chains).
 */
const why = await pgUnavailable();
if (why) {
  t.comment(`skipped: ${why}`);
} else {
  await run();
}

async function run() {
  // the stores this test opens read and write every collection in its stored layout
  const codecs = await builtinCollections();
  const { secrets, env } = sharedModeEnv('migrate');
  const migrate = (dataDir: string, to: string, extra: string[] = []) =>
    spawnSync(...nodeCommand([CLI, 'migrate', '--to', to, ...extra]), {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...secrets, SVC_DATA_DIR: dataDir, SVC_CONFIG: '' },
    });

  t.test('round trip: a sidecar on LMDB, migrated, is served from PostgreSQL', async (t) => {
    const dataDir = tempDir(t, 'pg-migrate-');
    const db = await createTestDatabase();
    t.teardown(() => db.drop());

    const embedded = await startReplica({ ...env, SVC_DATA_DIR: dataDir });
    await waitFor(async () => (await embedded.request('GET', '/readyz')).status === 200, { what: 'the LMDB sidecar to be ready', timeoutMs: 60_000, everyMs: 50 });
    const su = await embedded.request('POST', '/auth/signup', {
      body: { email: `m${process.pid}@example.com`, password: 'correct horse battery', organization_name: `Migrated ${process.pid}` },
    });
    t.equal(su.status, 201);
    const key = await embedded.request('POST', '/auth/api-keys', {
      body: { name: 'k', scopes: ['verify:read', 'attestation:read'] },
      headers: { authorization: `Bearer ${su.body.access_token}` },
    });
    t.equal(key.status, 201);
    let attestation = '';
    for (let i = 0; i < 5; i++) {
      const v = await embedded.request('POST', '/verify/math', { apiKey: key.body.key, body: { expression: `${i}+1=${i + 1}` } });
      t.equal(v.status, 200);
      attestation = v.body.attestation;
    }
    await embedded.stop(); // writes its shutdown checkpoints

    const lmdb = new LmdbStore(dataDir, { codecs });
    const snapshot = new Map<string, unknown[]>();
    for (const { name } of await lmdb.stats()) snapshot.set(name, await lmdb.collection(name).list());
    await lmdb.close();
    t.ok((snapshot.get(AUDIT_COLLECTION) ?? []).length >= 5, 'the sidecar audited its verifications');

    const r = migrate(dataDir, db.url);
    t.equal(r.status, 0, r.stdout + r.stderr);
    t.match(r.stdout, /source: \d+ audit entries in \d+ chain\(s\) verified/);
    t.match(r.stdout, /target: \d+ audit entries in \d+ chain\(s\) verified/);

    const pg = new PgStore({ url: db.url, codecs });
    t.teardown(() => pg.close());
    for (const [name, entries] of snapshot) t.same(await pg.collection(name).list(), entries, `${name} copied exactly`);

    const again = migrate(dataDir, db.url);
    t.equal(again.status, 2, 'never into a store that holds data');
    t.match(again.stderr, /already holds data/);

    // fact is its one engine: no warm-up (math's costs a replica about a second of CPU), and the
    // attestation issued by math before the move verifies without it
    const shared = await startReplica({ ...env, SVC_STORE_URL: db.url, SVC_PLUGINS_DISABLED: 'math,logic,code,sql,image,consensus,rag,process,stats,natural-language' });
    t.teardown(() => shared.stop());
    await waitFor(async () => (await shared.request('GET', '/readyz')).status === 200, { what: 'the shared replica to be ready', timeoutMs: 60_000, everyMs: 50 });
    t.equal((await shared.request('POST', '/verify/fact', { apiKey: key.body.key, body: { claim: 'It is red.', context: 'It is red.' } })).status, 200, 'the key works');
    const av = await shared.request('POST', '/attestation/verify', { apiKey: key.body.key, body: { jwt: attestation } });
    t.equal(av.body.valid, true, 'an attestation issued before the move verifies');
    const cli = spawnSync(...nodeCommand([CLI, 'audit', 'verify']), { encoding: 'utf8', env: { PATH: process.env.PATH, ...secrets, SVC_STORE_URL: db.url, SVC_CONFIG: '' } });
    t.equal(cli.status, 0, cli.stdout + cli.stderr);
    t.match(cli.stdout, /^OK: /m, 'the moved chain, extended in shared mode, verifies');
  });

  t.test('a broken source chain is not migrated', async (t) => {
    const dataDir = tempDir(t, 'pg-migrate-');
    const db = await createTestDatabase();
    t.teardown(() => db.drop());
    const lmdb = new LmdbStore(dataDir, { codecs });
    const chain = new AuditChain(lmdb, secrets.SVC_AUDIT_SECRET_KEY);
    for (let i = 0; i < 3; i++) {
      await chain.append('org_x', {
        route: '/verify/math',
        method: 'POST',
        key_id: 'k',
        user_id: null,
        request_hash: null,
        status: 'verified',
        engine: 'math',
        http_status: 200,
        proof_ref: null,
        constraint_id: null,
        raw_llm_output: null,
      });
    }
    t.ok(await lmdb.collection(AUDIT_COLLECTION).delete(entryKey('org_x', 1)));
    const keys = (await lmdb.collection(AUDIT_COLLECTION).list()).map((e) => e.key);
    await lmdb.close();
    t.equal(keys.length, 2, 'a link removed');
    const r = migrate(dataDir, db.url);
    t.equal(r.status, 1, r.stdout + r.stderr);
    t.match(r.stderr, /not migrated: BROKEN org=org_x/);
    const pg = new PgStore({ url: db.url, codecs });
    t.teardown(() => pg.close());
    t.same(await pg.stats(), [], 'nothing copied');
  });
}
