import t from 'tap';
import { corpusLines } from '../../../../bench/harness.js';
import { corpus, judge, op, setup } from '../../../../bench/engines/math.js';

t.test('the whole math corpus: zero wrong outcomes', async (t) => {
  const lines = corpusLines(corpus);
  t.equal(lines.length, 211);
  await setup();
  const byTag: Record<string, { correct: number; wrong: number; error: number }> = {};
  const wrong: string[] = [];
  const errors: string[] = [];
  for (const line of lines) {
    const out = await op(line);
    const verdict = judge(line, out);
    for (const tag of line.tags as string[]) {
      if (tag.includes(':')) continue;
      byTag[tag] ??= { correct: 0, wrong: 0, error: 0 };
      byTag[tag][verdict]++;
    }
    if (verdict === 'wrong') wrong.push(`${line.id} ${line.expression}`);
    if (verdict === 'error') errors.push(`${line.id} ${line.expression}`);
  }
  t.comment(JSON.stringify(byTag));
  t.same(wrong, [], 'no wrong outcome');
  // sec/csc/cot are read as 1/cos, 1/sin, cos/sin: every line is decided (211/211)
  t.same(errors, []);
});

t.test('the judge itself distinguishes right from wrong', async (t) => {
  const eq = { kind: 'equation' as const, expression: '2+2=5', expected: { holds: false } };
  t.equal(judge(eq, { status: 'VERIFIED', developer_fields: { is_valid: false } }), 'correct');
  t.equal(judge(eq, { status: 'VERIFIED', developer_fields: { is_valid: true } }), 'wrong');
  t.equal(judge(eq, { status: 'BLOCKED', developer_fields: {} }), 'error');
  const rej = { kind: 'evaluate' as const, expression: '1/0', expected: { reject: true } };
  t.equal(judge(rej, { status: 'BLOCKED', developer_fields: {} }), 'correct');
  t.equal(judge(rej, { status: 'UNVERIFIABLE', developer_fields: { value: 'Infinity' } }), 'wrong');
  const val = { kind: 'evaluate' as const, expression: '1/4+1/4', expected: { value: '0.5' } };
  t.equal(judge(val, { status: 'UNVERIFIABLE', developer_fields: { value: 0.5 } }), 'correct');
  t.equal(judge(val, { status: 'UNVERIFIABLE', developer_fields: { value: 0.25 } }), 'wrong');
});

t.test('the math corpus in LaTeX (mathjs toTex, read back): zero wrong outcomes, every line decided', async (t) => {
  const latex = await import('../../../../bench/engines/latex.js');
  await latex.setup();
  const bad: string[] = [];
  let read = 0;
  for (const line of corpusLines(latex.corpus)) {
    const out = (await latex.op(line)) as { developer_fields: Record<string, unknown> };
    if (out.developer_fields.read_as !== undefined) read++;
    const verdict = latex.judge(line, out);
    if (verdict !== 'correct') bad.push(`${line.id} ${verdict} ${latex.render(line.expression)}`);
  }
  t.same(bad, []);
  t.ok(read > 150, `most lines went through the LaTeX reader (${read})`);
});
