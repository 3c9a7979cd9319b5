import t from 'tap';
import { corpusLines } from '../../../../bench/harness.js';
import { op, judge, setup } from '../../../../bench/engines/sql.js';

const lines = corpusLines('sql.jsonl');

t.test('whole sql corpus: zero wrong, every line decided correctly', async (t) => {
  await setup();
  const score: Record<string, Record<string, number>> = {};
  const bad: string[] = [];
  for (const line of lines) {
    const verdict = judge(line, await op(line));
    const cls = line.expected.class as string;
    score[cls] ??= { correct: 0, wrong: 0, error: 0 };
    score[cls][verdict] = (score[cls][verdict] ?? 0) + 1;
    if (verdict !== 'correct') bad.push(`${line.id} ${cls} → ${verdict}: ${line.query}`);
  }
  t.comment(JSON.stringify(score));
  t.equal(lines.length, 86, 'corpus has 86 lines');
  const wrong = Object.values(score).reduce((a, s) => a + (s.wrong ?? 0), 0);
  t.equal(wrong, 0, `no wrong verdicts ${bad.join('; ')}`);
  t.same(bad, [], 'every line correct');
  t.equal(score.clean?.correct, 40);
  t.equal(score.malicious?.correct, 40);
  t.equal(score.invalid?.correct, 6);
});

t.test('fp_probe lines are admitted', async (t) => {
  for (const line of lines.filter((l) => l.tags.includes('fp_probe'))) {
    const r = (await op(line)) as { admission: string };
    t.equal(r.admission, 'ADMIT', `${line.id}: ${line.query}`);
  }
});
