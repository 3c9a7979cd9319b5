import t from 'tap';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Durability of the LMDB store: a write resolves only once it is on disk, or a reply can describe
 * an audit entry a power cut takes back. lmdb-js's README describes its default (overlappingSync)
 * as committing a transaction and syncing it afterwards, with a separate `flushed` promise; its
 * writer (3.5) sets a write's committed flag only once mdb_txn_commit, sync included, returned,
 * so the write's own promise already waits for the sync. This holds that against an upgrade or an
 * option (noSync, mapAsync) that would acknowledge first: the child runs with a shim that makes
 * every sync slow and counts those that completed, and each write must see one complete between
 * its start and its resolution.
 */
const SHIM_SRC = fileURLToPath(new URL('../../../test/core/fixtures/slow-sync.c', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/durable-child.js', import.meta.url));

t.test('every kind of store write resolves only after a sync that followed it completed', async (t) => {
  const dir = tempDir(t, 'pg-durable-');
  const shim = join(dir, 'slow-sync.so');
  const cc = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, SHIM_SRC, '-ldl'], { encoding: 'utf8' });
  t.equal(cc.status, 0, `the shim compiles: ${cc.stderr}`);
  const log = join(dir, 'syncs.log');
  const [node, args] = nodeCommand([CHILD, dir, log]);
  const r = spawnSync(node, args, { encoding: 'utf8', env: { ...process.env, LD_PRELOAD: shim, SLOW_SYNC_LOG: log }, timeout: 60_000 });
  t.equal(r.status, 0, r.stderr);
  const rounds = JSON.parse(r.stdout.trim().split('\n').pop()!) as Array<{ op: string; before: number; after: number }>;
  t.same(rounds.map((x) => x.op), ['commit', 'put', 'insert', 'update', 'delete']);
  for (const x of rounds) t.ok(x.after > x.before, `${x.op}: a sync completed before it resolved (${x.before} → ${x.after})`);
});
