import t from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

/**
 * audit.retention_days wired into a server: the prune runs at start (and hourly), exporting the
 * expired entries before it deletes them and keeping the head of every chain.
 */
const fields = (i: number): AuditFields => ({
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'verified',
  engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: `n ${i}`,
});

t.test('a server with audit.retention_days prunes expired entries at start, exported first', async (t) => {
  const dir = tempDir(t, 'pg-audit-retention-');
  const seed = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  let clock = new Date(Date.now() - 60 * 86_400_000);
  const chain = new AuditChain(seed, TEST_SECRETS.audit_secret_key, 20, 512, () => clock);
  for (let i = 0; i < 5; i++) await chain.append('org_a', fields(i));
  clock = new Date();
  await chain.append('org_a', fields(5));
  await seed.close();

  const s = await startServer({ plugins: builtinsWithoutEngines, dataDir: dir, warmEngines: false, config: { audit: { retention_days: 30 } } });
  t.teardown(() => s.close());
  const entries = s.kernel.app.store.collection(AUDIT_COLLECTION);
  await waitFor(async () => (await entries.count({ prefix: 'org_a/' })) === 1, { what: 'the start-up prune', timeoutMs: 15_000 });
  t.same((await entries.list({ prefix: 'org_a/' })).map((e) => e.key), [`org_a/${String(5).padStart(12, '0')}`], 'the recent head stays');
  const exportDir = join(dir, 'audit-export');
  t.ok(existsSync(exportDir), 'the export directory was made');
  t.equal(readdirSync(exportDir).length, 1, 'one export file holds the pruned entries');
});
