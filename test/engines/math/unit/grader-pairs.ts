import t from 'tap';
import { readFileSync } from 'node:fs';
import { verify } from '../../../../plugins/engines/math/engine.js';

/**
 * Answer equivalence as a public math grader measures it (issue 46): gold/prediction pairs of the
 * shapes such graders meet (test/engines/math/fixtures/grader-pairs.txt). A pair labelled unequal
 * is never VERIFIED equal — every one of them — and at least 95% of all pairs agree with their label;
 * the pairs that do not are named, so a rule change that moves them shows here.
 */
const text = readFileSync(new URL('../../../../../test/engines/math/fixtures/grader-pairs.txt', import.meta.url), 'utf8');
const pairs = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')).map((l) => l.split(' ||| ') as ['Y' | 'N', string, string]);

t.test('gold/prediction pairs: never VERIFIED where unequal, agreement at least 95%', async (t) => {
  t.ok(pairs.length >= 250, `${pairs.length} pairs`);
  const disagree: string[] = [];
  for (const [label, pred, gold] of pairs) {
    const o = verify({ expression: pred, expected: gold });
    const d = o.developer_fields as Record<string, unknown>;
    const equal = o.status === 'VERIFIED' && d.is_correct === true;
    if (label === 'N') t.notOk(equal, `never VERIFIED equal: ${pred} vs ${gold}`);
    if (equal) t.match(o.proof_ref, /^sha256:/, `${pred} vs ${gold}`);
    if (equal !== (label === 'Y')) disagree.push(`${label} ${pred} vs ${gold}: ${o.status} ${String(d.message ?? '')}`);
  }
  const agreement = 1 - disagree.length / pairs.length;
  t.ok(agreement >= 0.95, `agreement ${(agreement * 100).toFixed(1)}%; disagreeing:\n${disagree.join('\n')}`);
});
