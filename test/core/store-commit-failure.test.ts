import t from 'tap';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A failed LMDB commit (every sync failing with EIO under an LD_PRELOAD shim) rejects the writes that
 * asked for it, and the process goes on: lmdb-js rejects the promise of every write in the commit,
 * and the writes inside a conditional or a multi-write commit used to go unobserved, so their
 * rejections ended the process (seen with two processes on one data directory).
 */
const SHIM_SRC = fileURLToPath(new URL('../../../test/core/fixtures/failing-sync.c', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/commit-failure-child.js', import.meta.url));

t.test('a commit that cannot be made durable rejects to its caller and the process survives', async (t) => {
  const dir = tempDir(t, 'pg-commitfail-');
  const shim = join(dir, 'failing-sync.so');
  const cc = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, SHIM_SRC, '-ldl'], { encoding: 'utf8' });
  if (!t.equal(cc.status, 0, `cc builds the shim: ${cc.stderr}`)) return;
  const [node, args] = nodeCommand([CHILD, join(dir, 'data'), join(dir, 'fail-now')]);
  const r = spawnSync(node, args, { encoding: 'utf8', env: { ...process.env, LD_PRELOAD: shim, FAIL_SYNC_FLAG: join(dir, 'fail-now') }, timeout: 60_000 });
  t.equal(r.status, 0, `the process lived: ${r.stderr.slice(-1500)}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
  t.match(out.insert, /^rejected/, 'the insert was refused, not acknowledged');
  t.match(out.commit, /^rejected/, 'the commit was refused, not acknowledged');
});
