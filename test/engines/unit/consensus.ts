import t from 'tap';
import { evaluate, formatQ, parseArith, toDsl, ArithRefusal } from '../../../plugins/engines/consensus/rational.js';
import { candidates } from '../../../plugins/engines/consensus/select.js';
import { aggregate, type ChainEntry } from '../../../plugins/engines/consensus/verifier.js';
import { rationalVerifier } from '../../../plugins/engines/consensus/rational-verifier.js';

const val = (s: string) => formatQ(evaluate(parseArith(s).left));

t.test('exact rational arithmetic', async (t) => {
  t.equal(val('1/3 + 1/6'), '1/2');
  t.equal(val('0.1 + 0.2'), '3/10');
  t.equal(val('-2^2'), '-4', 'power binds tighter than unary minus');
  t.equal(val('2^3^2'), '512', 'right associative');
  t.equal(val('2**-2'), '1/4');
  t.equal(val('(1 - 3) * .5'), '-1');
  for (const [src, reason] of [
    ['1/0', 'division_by_zero'],
    ['1/(2-2)', 'division_by_zero'],
    ['2^(1/2)', 'non_integer_exponent'],
    ['10^100000', 'cost'],
    ['2(3)', 'syntax'],
    ['1 +', 'syntax'],
    ['((1)', 'syntax'],
    ['('.repeat(70) + '1' + ')'.repeat(70), 'cost'],
  ] as const) {
    let reasonSeen: string | null = null;
    try {
      val(src);
    } catch (e) {
      reasonSeen = e instanceof ArithRefusal ? e.reason : 'other';
    }
    t.equal(reasonSeen, reason, src.slice(0, 20));
  }
});

t.test('DSL restatement is exact or absent', async (t) => {
  const { left, right } = parseArith('1/2 + 3 = -2^2 * 7');
  t.equal(toDsl(left), '(PLUS (DIV 1.0 2.0) 3.0)', 'every literal is Real so DIV is exact');
  t.equal(toDsl(right!), '(MULT (MINUS (POW 2.0 2)) 7.0)');
  t.equal(toDsl(parseArith('2^(1+1)').left), null, 'POW needs a literal exponent');
  t.equal(toDsl(parseArith('2^65').left), null, 'exponent over 64');
});

t.test('candidates: deterministic engine choice', async (t) => {
  t.same(candidates('2+2=4').engines.map((e) => e.engine), ['math', 'logic', 'rational']);
  t.equal(candidates('2+2=4').engines[1].input.query, '(EQ (PLUS 2.0 2.0) 4.0)');
  t.same(candidates('2+2').engines.map((e) => e.engine), ['math', 'rational'], 'logic only checks equations');
  t.same(candidates('1/0 = 3').engines.map((e) => e.engine), ['math', 'rational'], 'division by zero is not stated to z3');
  t.same(candidates('2(3) = 6').engines.map((e) => e.engine), ['math']);
  t.same(candidates('(AND (GT x 1) (LT x 3))').engines.map((e) => e.engine), ['logic']);
  t.equal(candidates('(1+2)=3').kind, 'arithmetic');
  t.same(candidates('Is Paris the capital of France?').engines, [], 'the fact engine is never chosen');
  t.same(candidates('1 = 1 = 1').engines, []);
});

t.test('rational verifier verdicts', async (t) => {
  const yes = await rationalVerifier.verify({ expression: '0.1+0.2=0.3' });
  t.equal(yes.status, 'VERIFIED');
  t.equal(yes.developer_fields.is_valid, true);
  t.match(yes.proof_ref, /^sha256:/);
  const no = await rationalVerifier.verify({ expression: '2+2=5' });
  t.equal(no.status, 'VERIFIED');
  t.equal(no.developer_fields.is_valid, false);
  t.not(no.proof_ref, yes.proof_ref);
  const v = await rationalVerifier.verify({ expression: '7/2' });
  t.equal(v.status, 'UNVERIFIABLE', 'a computed value is not a verified claim');
  t.equal(v.developer_fields.value, '7/2');
  const b = await rationalVerifier.verify({ expression: '1/0=1' });
  t.equal(b.status, 'BLOCKED');
  t.equal(b.developer_fields.constraint_id, 'rational_verifier.division_by_zero');
});

const entry = (engine: string, status: ChainEntry['status'], result: string): ChainEntry => ({
  engine,
  method: 'm',
  result,
  confidence: status === 'VERIFIED' ? 100 : 0,
  latency_ms: 1,
  success: status === 'VERIFIED',
  status,
  proof_ref: status === 'VERIFIED' ? 'sha256:' + '0'.repeat(64) : null,
});

t.test('aggregate: unanimity, exact confidence, advisory never counts', async (t) => {
  const u = aggregate('q', 'maximum', [entry('a', 'VERIFIED', 'true'), entry('b', 'VERIFIED', 'true'), entry('c', 'VERIFIED', 'true')], 0.95, 5);
  t.equal(u.diagnostic.status, 'VERIFIED');
  t.equal(u.confidence, 100);
  t.equal(u.agreement_status, 'unanimous');
  t.equal(u.final_answer, 'true');
  t.equal(u.meets_requirement, true);
  t.equal(u.diagnostic.developer_fields.is_valid, true);

  const m = aggregate('q', 'maximum', [entry('a', 'VERIFIED', 'true'), entry('b', 'VERIFIED', 'false'), entry('c', 'VERIFIED', 'true')], 0.6, 5);
  t.equal(m.confidence, 66.67);
  t.equal(m.diagnostic.developer_fields.confidence_exact, '66.666666666666666667');
  t.equal(m.agreement_status, 'majority');
  t.equal(m.diagnostic.status, 'UNVERIFIABLE', 'not unanimous: never VERIFIED');
  t.equal(m.meets_requirement, true);
  t.equal(m.diagnostic.proof_ref, null);

  const s = aggregate('q', 'high', [entry('a', 'VERIFIED', 'true'), entry('b', 'VERIFIED', 'false')], 0, 5);
  t.equal(s.agreement_status, 'split');
  t.equal(s.final_answer, 'NO_CONSENSUS');
  t.equal(s.confidence, 0);
  t.equal(s.meets_requirement, false);

  const adv = aggregate('q', 'single', [entry('a', 'UNVERIFIABLE', '7/2')], 0, 5);
  t.equal(adv.meets_requirement, false, 'advisory-only answers never meet a requirement, even min 0');
  t.equal(adv.final_answer, '7/2');
  t.equal(adv.agreement_status, 'no_verified_result');

  const partial = aggregate('q', 'high', [entry('a', 'VERIFIED', 'true'), entry('b', 'BLOCKED', 'BLOCKED: x')], 0.5, 5);
  t.equal(partial.confidence, 50);
  t.equal(partial.meets_requirement, true);
  t.equal(partial.diagnostic.status, 'UNVERIFIABLE');
});

t.test('min_confidence is compared exactly as written (issue 12, item 3)', async (t) => {
  const chain = [entry('a', 'VERIFIED', 'true'), entry('b', 'VERIFIED', 'false'), entry('c', 'VERIFIED', 'true')];
  // 2 of 3 agree: exactly 0.666…; the rounded 66.67 % must not meet a threshold above two thirds
  t.equal(aggregate('q', 'maximum', chain, '0.66666666666666666666666667', 5).meets_requirement, false);
  t.equal(aggregate('q', 'maximum', chain, '0.666666666666666666666666666', 5).meets_requirement, true);
  t.equal(aggregate('q', 'maximum', chain, '0.6667', 5).meets_requirement, false, 'today: met (66.67 ≥ 66.67)');
  const all = [entry('a', 'VERIFIED', 'true'), entry('b', 'VERIFIED', 'true')];
  t.equal(aggregate('q', 'high', all, '1.00000000000000000000001', 5).meets_requirement, false, 'beyond double precision: not 1');
  t.equal(aggregate('q', 'high', all, '1', 5).meets_requirement, true);
});
