import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { corpus, judge, op, setup } from '../../../bench/engines/code.js';

/** The corpus lives outside the repository; found like the bench harness (BENCH_CORPUS_DIR overrides). */
function corpusPath(): string | null {
  const repo = fileURLToPath(new URL('../../../../', import.meta.url));
  const dirs = [process.env.BENCH_CORPUS_DIR, join(repo, '..', 'shared', 'corpus'), join(repo, '..', '..', 'shared', 'corpus'), '/work/shared/corpus'];
  for (const d of dirs) if (d && existsSync(join(d, corpus))) return join(d, corpus);
  return null;
}

t.test('whole code corpus: zero wrong, zero error', async (t) => {
  const path = corpusPath();
  t.ok(path, 'corpus file found');
  if (!path) return;
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  t.equal(lines.length, 90, 'corpus version 1 has 90 lines');
  await setup();
  const score = { correct: 0, wrong: 0, error: 0 };
  const misses: string[] = [];
  for (const line of lines) {
    const verdict = judge(line, await op(line));
    score[verdict]++;
    if (verdict !== 'correct') misses.push(`${line.id} (${line.expected.why ?? 'safe'}): ${verdict}`);
  }
  t.comment(`code corpus: ${JSON.stringify(score)}`);
  t.same(misses, [], 'every line decided and agreeing with expected');
  t.equal(score.wrong, 0);
  t.equal(score.correct, lines.length);
});

t.test('the judge scores by admission and refuses undecided results', async (t) => {
  const unsafe = { expected: { unsafe: true } };
  const safe = { expected: { unsafe: false } };
  t.equal(judge(unsafe, { status: 'VERIFIED', admission: 'BLOCKED' }), 'correct');
  t.equal(judge(unsafe, { status: 'VERIFIED', admission: 'ADMIT' }), 'wrong');
  t.equal(judge(safe, { status: 'VERIFIED', admission: 'BLOCKED' }), 'wrong');
  t.equal(judge(safe, { status: 'BLOCKED', admission: 'BLOCKED' }), 'error');
});
