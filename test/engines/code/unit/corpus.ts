import t from 'tap';
import { corpusLines } from '../../../../bench/harness.js';
import { corpus, judge, op, setup } from '../../../../bench/engines/code.js';

t.test('whole code corpus: zero wrong, zero error', async (t) => {
  const lines = corpusLines(corpus);
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
