import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LmdbStore } from '../../core/store/lmdb.js';
import { AuditChain } from '../../plugins/audit/index.js';
import { AUDIT_COLLECTION } from '../../plugins/audit/compact.js';
import { walkChains } from '../../plugins/audit/verify.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { runCli } from './fixtures/cli.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

const CHILD = fileURLToPath(new URL('./fixtures/append-child.js', import.meta.url));
const SECRET = TEST_SECRETS.audit_secret_key;

t.test('a writer killed with SIGKILL mid-append leaves chains that verify and continue', async (t) => {
  const dir = tempDir(t, 'pg-crash-');
  const child = spawn(...nodeCommand([CHILD, dir, SECRET]), { stdio: ['ignore', 'pipe', 'inherit'] });
  let acknowledged = 0;
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) acknowledged = Math.max(acknowledged, Number(l));
      if (acknowledged >= 600 && child.exitCode === null && !child.killed) {
        child.kill('SIGKILL');
      }
    });
    child.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited on its own (${signal})`))));
    child.once('error', reject);
  });
  t.ok(acknowledged >= 600, `${acknowledged} appends acknowledged before the kill`);

  const store = new LmdbStore(dir, { codecs: AUDIT_CODECS });
  try {
    const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET);
    t.equal(walk.broken, null, 'chains intact after the crash');
    t.ok(walk.entries >= acknowledged, `every acknowledged append survived (${walk.entries} ≥ ${acknowledged})`);
    // a new writer picks up the heads from the store and continues the chains
    const chain = new AuditChain(store, SECRET);
    for (let i = 0; i < 6; i++) {
      await chain.append(`org_${i % 3}`, {
        route: '/verify/math', method: 'POST', key_id: null, user_id: null, request_hash: null, status: 'blocked',
        engine: 'math', http_status: 403, proof_ref: null, constraint_id: 'math.mismatch', raw_llm_output: null,
      });
    }
    const again = await walkChains(store.collection(AUDIT_COLLECTION), SECRET);
    t.equal(again.broken, null);
    t.equal(again.entries, walk.entries + 6);
  } finally {
    await store.close();
  }
  const cli = await runCli(['audit', 'verify', '--data-dir', dir]);
  t.equal(cli.code, 0, cli.stdout + cli.stderr);
  t.match(cli.stdout, /OK: \d+ entries in 3 chain/);
});
