import t from 'tap';
import { checkCombination } from '../../../../plugins/engines/logic/certificate.js';
import { negativeCycle } from '../../../../plugins/engines/logic/differences.js';
import { checkOverload, findOverload, scheduleModel } from '../../../../plugins/engines/logic/disjunctive.js';
import { parseQuery, printTerm, type Formula } from '../../../../plugins/engines/logic/dsl.js';
import { solve } from '../../../../plugins/engines/logic/engine.js';
import { solveFinite } from '../../../../plugins/engines/logic/finite.js';
import { presolve } from '../../../../plugins/engines/logic/presolve.js';
import { classify } from '../../../../plugins/engines/logic/shape.js';
import { evaluate } from '../evaluate.js';

/**
 * The pre-solvers that answer without z3: an UNSAT only with a contradiction that an independent
 * checker accepts, a SAT only with a model the engine's evaluator accepts. The soundness cases are
 * the ones that must NOT be answered: near misses, tampered proofs, models that fail the re-check.
 */
function formula(q: string): Formula {
  const p = parseQuery(q);
  if (!p.ok) throw new Error(p.message);
  return p.formula;
}

t.test('linear-combination certificates are checked, not believed', async (t) => {
  const f = formula('(AND (LT a b) (LT b c) (LT c a) (GT (MULT 3 a) 1))');
  const cert = negativeCycle(f);
  t.ok(cert, 'a < b < c < a is found');
  const c = checkCombination(f, cert!, printTerm);
  t.equal(c?.sum, '3 <= 0', 'three strict Int steps sum to 0 ≤ −3');
  t.same(c?.atoms.map((x) => x.atom).sort(), ['(LT a b)', '(LT b c)', '(LT c a)']);
  // tampered: a step dropped, a multiplier changed, an inequality taken negatively, a missing conjunct
  t.equal(checkCombination(f, { steps: cert!.steps.slice(1) }, printTerm), null, 'a step dropped: variables no longer cancel');
  t.equal(checkCombination(f, { steps: cert!.steps.map((s, i) => ({ ...s, times: i ? s.times : 2n })) }, printTerm), null, 'a multiplier changed');
  t.equal(checkCombination(f, { steps: [{ part: 0, times: -1n }, { part: 0, times: 1n }] }, printTerm), null, 'an inequality may not be negated');
  t.equal(checkCombination(f, { steps: [{ part: 9, times: 1n }] }, printTerm), null, 'no such conjunct');
  t.equal(checkCombination(f, { steps: [] }, printTerm), null, 'an empty certificate proves nothing');
  // the same cycle over Real is still a contradiction (strict), but a < b < a + 1 is one only over Int
  const ints = formula('(AND (LT a b) (LT b (PLUS a 1)))');
  t.equal(checkCombination(ints, { steps: [{ part: 0, times: 1n }, { part: 1, times: 1n }] }, printTerm)?.sum, '1 <= 0');
  const reals = formula('(VAR a Real) (VAR b Real) (AND (LT a b) (LT b (PLUS a 1)))');
  t.equal(checkCombination(reals, { steps: [{ part: 0, times: 1n }, { part: 1, times: 1n }] }, printTerm), null, 'no Int tightening over Real');
  t.equal(negativeCycle(reals), null, 'Real atoms are not difference edges');
  const r = await solve({ query: '(VAR a Real) (VAR b Real) (AND (LT a b) (LT b (PLUS a 1)))' });
  t.equal(r.status, 'SAT', 'and the engine finds the Real model');
  // an EQ may be used in either direction
  const eq = formula('(AND (EQ (MINUS a b) 3) (LT a b))');
  t.ok(checkCombination(eq, negativeCycle(eq)!, printTerm), 'a − b = 3 ∧ a < b');
});

t.test('a linear system with a planted cycle is refuted by the cycle alone', async (t) => {
  const q = '(AND (LTE (PLUS (MULT 3 x) y) 20) (EQ (PLUS x (MULT -2 z)) 1) (LT x y) (LT y z) (LT z x))';
  const out = await solve({ query: q });
  t.equal(out.status, 'UNSAT');
  t.equal(out.strategy, 'negative_cycle');
  t.equal(out.contradiction?.rule, 'linear_combination');
  // without the cycle's last edge the system is satisfiable, and no contradiction is claimed
  const open = await solve({ query: '(AND (LTE (PLUS (MULT 3 x) y) 20) (EQ (PLUS x (MULT -2 z)) 1) (LT x y) (LT y z))' });
  t.equal(open.status, 'SAT');
  t.ok(evaluate('(AND (LTE (PLUS (MULT 3 x) y) 20) (EQ (PLUS x (MULT -2 z)) 1) (LT x y) (LT y z))', open.model ?? {}));
});

const sched = (horizon: number, durations: number[], extra = ''): string => {
  const parts: string[] = [];
  durations.forEach((d, i) => parts.push(`(GTE s${i} 0)`, `(LTE (PLUS s${i} ${d}) ${horizon})`));
  for (let i = 0; i < durations.length; i++)
    for (let j = i + 1; j < durations.length; j++)
      parts.push(`(OR (LTE (PLUS s${i} ${durations[i]}) s${j}) (LTE (PLUS s${j} ${durations[j]}) s${i}))`);
  return `(AND ${parts.join(' ')}${extra})`;
};

t.test('disjunctive overload: UNSAT with a proof the checker re-derives', async (t) => {
  const f = formula(sched(9, [3, 4, 3]));
  const proof = findOverload(f, printTerm);
  t.equal(proof?.sum, '10 > 9 - 0');
  t.ok(checkOverload(f, proof!, printTerm), 'the checker accepts it');
  const out = await solve({ query: sched(9, [3, 4, 3]) });
  t.equal(out.status, 'UNSAT');
  t.equal(out.strategy, 'disjunctive_overload');
  // tampered proofs are refused
  const longer = { ...proof!, tasks: proof!.tasks.map((x, i) => (i ? x : { ...x, duration: '5' })) };
  t.notOk(checkOverload(f, longer, printTerm), 'a duration longer than the disjunction gives');
  t.notOk(checkOverload(f, { ...proof!, pairs: proof!.pairs.slice(1) }, printTerm), 'a pair without its disjunction');
  t.notOk(checkOverload(f, { ...proof!, tasks: proof!.tasks.map((x) => ({ ...x, latest_end: '8' })) }, printTerm), 'a window the bounds do not give');
  t.notOk(checkOverload(formula(sched(10, [3, 4, 3])), proof!, printTerm), 'another formula');
});

t.test('disjunctive near misses are not refuted, and their schedules are re-checked', async (t) => {
  // exactly full: satisfiable, so no overload may be claimed; the ordered schedule is a model
  const full = formula(sched(10, [3, 4, 3]));
  t.equal(findOverload(full, printTerm), null);
  const m = scheduleModel(full);
  t.ok(m && evaluate(sched(10, [3, 4, 3]), m));
  t.equal(presolve(full, classify(full))?.strategy, 'schedule_order');
  // a missing pair: tasks 0 and 2 may overlap, the sum argument does not hold
  const q =
    '(AND (GTE s0 0) (LTE (PLUS s0 3) 7) (GTE s1 0) (LTE (PLUS s1 3) 7) (GTE s2 0) (LTE (PLUS s2 3) 7) ' +
    '(OR (LTE (PLUS s0 3) s1) (LTE (PLUS s1 3) s0)) (OR (LTE (PLUS s1 3) s2) (LTE (PLUS s2 3) s1)))';
  t.equal(findOverload(formula(q), printTerm), null, 'not every pair is disjoint');
  const open = await solve({ query: q });
  t.equal(open.status, 'SAT', 'tasks 0 and 2 share a slot');
  t.ok(evaluate(q, open.model ?? {}));
  // a zero gap is no disjointness: s0 = s1 satisfies both disjuncts
  const zero = '(AND (GTE s0 0) (LTE (PLUS s0 1) 1) (GTE s1 0) (LTE (PLUS s1 1) 1) (OR (LTE s0 s1) (LTE s1 s0)))';
  t.equal(findOverload(formula(zero), printTerm), null);
  t.equal((await solve({ query: zero })).status, 'SAT');
  // the schedule ignores a side condition, so its model fails the re-check and z3 decides instead
  const side = sched(10, [3, 4, 3], ' (OR (GT s0 5) (GT s1 6))');
  const sf = formula(side);
  const sm = scheduleModel(sf);
  t.ok(sm && !evaluate(side, sm), 'the ordered schedule violates the side condition');
  t.not(presolve(sf, classify(sf))?.strategy, 'schedule_order', 'a model that fails the re-check is no answer');
  const out = await solve({ query: side });
  t.equal(out.status, 'SAT');
  t.ok(evaluate(side, out.model ?? {}), 'the answer stands on a model that satisfies the query');
});

t.test('finite-domain search proposes models; UNSAT and what it cannot read stay z3’s', async (t) => {
  const cnf = '(AND (GTE p 0) (LTE p 1) (GTE q 0) (LTE q 1) (GTE r 0) (LTE r 1) (OR (EQ p 1) (EQ q 1)) (OR (EQ p 0) (EQ r 1)) (OR (EQ q 0) (EQ r 0)) (IMPLIES (EQ r 1) (EQ q 1)))';
  const m = solveFinite(formula(cnf));
  t.ok(m && evaluate(cnf, m), 'a model of the clauses');
  const out = await solve({ query: cnf });
  t.equal(out.status, 'SAT');
  t.equal(out.strategy, 'finite_search');
  // unsatisfiable: the search finds nothing and claims nothing; z3 proves it
  const unsat = '(AND (GTE p 0) (LTE p 1) (GTE q 0) (LTE q 1) (OR (EQ p 1) (EQ q 1)) (OR (EQ p 0) (EQ q 0)) (IFF (EQ p 1) (EQ q 1)))';
  t.equal(solveFinite(formula(unsat)), null);
  const u = await solve({ query: unsat });
  t.equal(u.status, 'UNSAT');
  t.equal(u.strategy, 'bit_blast');
  // EQ-only variables range over the values named plus one other
  const eqOnly = '(AND (NEQ h 1) (NEQ h 2) (OR (EQ h 3) (EQ g 4)) (NEQ g 4))';
  const e = solveFinite(formula(eqOnly));
  t.ok(e && evaluate(eqOnly, e));
  // a Bool-valued XOR over atoms, and a Bool variable
  const mixed = '(VAR b Bool) (AND (GTE x 0) (LTE x 3) (XOR b (GT x 2) (EQ x 1)) (NOT b))';
  const mm = solveFinite(formula(mixed));
  t.ok(mm && evaluate(mixed, mm));
  // a wide range is not finite here
  t.equal(solveFinite(formula('(AND (GTE x 0) (LTE x 1000) (OR (EQ x 999) (EQ x 5)))')), null);
});
