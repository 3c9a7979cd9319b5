import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CHILD = fileURLToPath(new URL('./fixtures/retention-child.js', import.meta.url));

/**
 * Retention deletes entries only once they are in the export file. A write that stores only part
 * of the data (a full disk, a file-size limit) must stop the prune, not pass for an export.
 */
t.test('an export the file system takes only in part prunes nothing it did not export', async (t) => {
  const dir = tempDir(t, 'pg-retention-');
  const [node, args] = nodeCommand([CHILD, dir, '300']);
  // 300 entries of ~900 bytes of JSON: far more than the 64 KiB the child may write to one file
  const r = spawnSync('/bin/sh', ['-c', 'ulimit -f 128 && exec "$0" "$@"', node, ...args], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim()) as { pruned?: number; error?: string; remaining: number[] };
  const exported = new Set<number>();
  let cut = 0;
  for (const f of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)) {
      try {
        exported.add((JSON.parse(line) as { seq: number }).seq);
      } catch {
        cut++;
      }
    }
  }
  t.ok(exported.size < 299, `the limit cut the export (${exported.size} entries in the file)`);
  t.equal(cut, 0, 'no partial line is left in the export file');
  const kept = new Set(out.remaining);
  const lost = Array.from({ length: 300 }, (_, i) => i).filter((seq) => !kept.has(seq) && !exported.has(seq));
  t.same(lost, [], 'every entry is either still stored or in the export');
  t.equal(out.error, 'EFBIG', 'the prune stopped at the failed write');
});
