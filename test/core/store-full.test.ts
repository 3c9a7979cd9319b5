import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LmdbStore } from '../../core/store/lmdb.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CHILD = fileURLToPath(new URL('./fixtures/store-full-child.js', import.meta.url));

/**
 * A full disk under the LMDB store, as a file-size limit makes one without root: the child may
 * write 512 KiB to any file, so the data file stops growing there. What was acknowledged before
 * must be on disk, the refusals must be StoreFullError, logged once, and close must finish
 * (lmdb-js's own close never did after a failed commit).
 */
t.test('a store on a full disk refuses writes as StoreFullError, logs once, keeps what it acknowledged and closes', async (t) => {
  const dir = tempDir(t, 'pg-store-full-');
  const [node, args] = nodeCommand([CHILD, dir]);
  const r = spawnSync('/bin/sh', ['-c', 'ulimit -f 1024 && exec "$0" "$@"', node, ...args], { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 0, 'the child exits cleanly (no unhandled rejection, no hang)', { stderr: r.stderr.slice(-2000) });
  const out = JSON.parse(r.stdout.trim()) as {
    first: { name: string; full: boolean; cause: boolean } | null;
    refused: number;
    acked: number[];
    read: number | null;
    close_ms: number;
    logs: Array<{ level: string; obj: Record<string, unknown>; msg: string }>;
  };
  t.ok(out.refused > 0, `the limit was reached (${out.acked.length} writes acknowledged, ${out.refused} refused)`);
  t.same(out.first && { name: out.first.name, full: out.first.full }, { name: 'StoreFullError', full: true }, 'a refused write is a StoreFullError');
  t.ok(out.first?.cause, "it keeps lmdb-js's error as its cause");
  t.equal(out.read, out.acked[0], 'reads go on');
  t.ok(out.close_ms < 10_000, `close finished (${out.close_ms} ms)`);
  const full = out.logs.filter((l) => l.obj.event === 'store.full');
  t.equal(full.length, 1, `the episode is logged once for ${out.refused} refusals`);
  t.match(full[0]?.obj, { cause: /^(EFBIG|EIO)$/ }, 'with its cause');
  t.notOk(out.logs.some((l) => l.obj.event === 'store.close_incomplete'), 'close did not have to give up');

  // every write acknowledged before the close is there once the limit is gone
  const store = new LmdbStore(dir);
  t.teardown(() => store.close());
  const keys = new Set((await store.collection('fill').list()).map((e) => e.key));
  t.same(out.acked.filter((i) => !keys.has(`k${String(i).padStart(5, '0')}`)), [], 'nothing acknowledged is lost');
  await store.collection('fill').put('after', { i: -1, pad: '' });
  t.same(await store.collection('fill').get('after'), { i: -1, pad: '' }, 'without the limit the store writes again');
});
