import t from 'tap';
import { corpusLines } from '../../../../bench/harness.js';
import { judge, setup } from '../../../../bench/engines/logic.js';
import { solve } from '../../../../plugins/engines/logic/engine.js';
import { MAX_TIMEOUT_MS } from '../../../../plugins/engines/logic/outcome.js';
import { evaluate } from '../evaluate.js';
import type { SolveOutcome } from '../../../../plugins/engines/logic/outcome.js';

t.test('the whole logic corpus through the engine: zero wrong, zero error', async (t) => {
  const lines = corpusLines('logic.jsonl');
  t.equal(lines.length, 100, 'corpus version 1 has 100 lines');
  await setup();
  const score = { correct: 0, wrong: 0, error: 0 };
  const wrong: string[] = [];
  for (const line of lines) {
    // the largest budget, so a busy machine slows the test down instead of turning lines into errors
    const out: SolveOutcome = await solve({ query: line.query, timeoutMs: MAX_TIMEOUT_MS });
    const v = judge(line, out);
    score[v]++;
    if (v !== 'correct') wrong.push(`${line.id}: ${v} (${out.status} ${out.error ?? ''})`);
    // a SAT answer must come with a model that really satisfies the query
    if (out.status === 'SAT') t.ok(evaluate(line.query, out.model ?? {}), `${line.id}: model satisfies the query`);
    if (line.witness && out.status === 'SAT') t.ok(evaluate(line.query, stringify(line.witness)), `${line.id}: planted witness also satisfies it`);
  }
  t.comment(`logic corpus: correct ${score.correct}, wrong ${score.wrong}, error ${score.error}`);
  t.same(wrong, [], 'no line wrong or undecided');
  t.equal(score.wrong, 0);
  t.equal(score.correct, 100);
});

function stringify(w: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(w).map(([k, v]) => [k, String(v)]));
}
