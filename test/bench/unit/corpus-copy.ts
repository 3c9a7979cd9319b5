import t from 'tap';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir } from '../../../bench/harness.js';

// The repository keeps its own copy of the benchmark corpus so a bare clone can run the corpus
// tests and the bench; these checks keep the copy honest.
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const copy = join(repo, 'bench', 'corpus');

function sums(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(join(dir, 'SHA256SUMS'), 'utf8').split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S+)$/.exec(line.trim());
    if (m) out.set(m[2], m[1]);
  }
  return out;
}

t.test('the checked copy matches its SHA256SUMS', async (t) => {
  const listed = sums(copy);
  t.ok(listed.size >= 4, 'SHA256SUMS lists the corpus files');
  for (const [file, sum] of listed) {
    t.equal(createHash('sha256').update(readFileSync(join(copy, file))).digest('hex'), sum, file);
  }
});

t.test('the bench and corpus tests read the copy inside the repository by default', async (t) => {
  if (process.env.BENCH_CORPUS_DIR) t.equal(corpusDir(), process.env.BENCH_CORPUS_DIR);
  else t.equal(corpusDir(), copy + '/');
});

// The shared original, where a workspace lays it out beside the clone; a bare clone has none.
const shared = join(repo, '..', 'shared', 'corpus');
t.test('the copy equals the shared original when that folder exists', { skip: existsSync(shared) ? false : 'no shared corpus beside this clone' }, async (t) => {
  const original = sums(shared);
  t.same([...sums(copy)].sort(), [...original].sort(), 'same files, same sums');
  for (const file of [...original.keys(), 'README.md']) {
    t.ok(readFileSync(join(copy, file)).equals(readFileSync(join(shared, file))), `${file} is byte-identical`);
  }
});
