import t from 'tap';
import { corpusLines } from '../../../../bench/harness.js';
import { judge, setup } from '../../../../bench/engines/logic.js';
import { parseQuery, type Formula } from '../../../../plugins/engines/logic/dsl.js';
import { solve } from '../../../../plugins/engines/logic/engine.js';
import { holds } from '../../../../plugins/engines/logic/evaluate.js';
import { solveIntervals } from '../../../../plugins/engines/logic/intervals.js';
import { MAX_TIMEOUT_MS } from '../../../../plugins/engines/logic/outcome.js';
import { classify } from '../../../../plugins/engines/logic/shape.js';
import { PRESOLVERS_FOR, STRATEGY_FOR } from '../../../../plugins/engines/logic/strategy.js';
import { printTerm } from '../../../../plugins/engines/logic/dsl.js';
import { evaluate } from '../evaluate.js';

/**
 * Each strategy choice is pinned to the corpus tags it was measured on (strategy.ts): a change of
 * classification or of the shape→strategy table shows up here, and every line is still solved
 * right by the strategy it is pinned to.
 */
const PINNED: Record<string, Record<string, number>> = {
  small: { interval: 7, linear_simplex: 6, default: 8, difference_logic: 6 },
  'small+int_default': { interval: 1 },
  'small+iff': { difference_logic: 2 },
  chain: { difference_logic: 20 },
  'linear+planted': { linear_simplex: 13 },
  'linear+cycle': { difference_logic: 1, linear_simplex: 12 },
  'cnf+planted': { bit_blast: 6 },
  'cnf+pigeonhole': { bit_blast: 6 },
  scheduling: { difference_logic: 6 },
};

/** which pre-solver or z3 strategy actually decides each tag's lines */
const DECIDED_BY: Record<string, Record<string, number>> = {
  small: { interval: 7, linear_branch_bound: 3, linear_simplex: 3, default: 8, difference_logic: 6 },
  'small+int_default': { interval: 1 },
  'small+iff': { difference_logic: 2 },
  chain: { difference_paths: 10, negative_cycle: 10 },
  'linear+planted': { linear_branch_bound: 13 },
  'linear+cycle': { negative_cycle: 13 },
  'cnf+planted': { finite_search: 6 },
  'cnf+pigeonhole': { finite_search: 2, bit_blast: 4 },
  scheduling: { schedule_order: 3, disjunctive_overload: 3 },
};

function formula(q: string): Formula {
  const p = parseQuery(q);
  if (!p.ok) throw new Error(p.message);
  return p.formula;
}

t.test('strategy per corpus tag is pinned, and each pinned strategy answers its lines right', async (t) => {
  await setup();
  const seen: Record<string, Record<string, number>> = {};
  const decided: Record<string, Record<string, number>> = {};
  for (const line of corpusLines('logic.jsonl')) {
    const p = parseQuery(line.query);
    if (!p.ok) continue;
    const tag = (line.tags as string[]).filter((x) => !x.includes(':')).join('+');
    const strategy = STRATEGY_FOR[classify(p.formula)];
    (seen[tag] ??= {})[strategy] = (seen[tag][strategy] ?? 0) + 1;
    const out = await solve({ query: line.query, timeoutMs: MAX_TIMEOUT_MS });
    t.equal(judge(line, out), 'correct', `${line.id} (${tag}) by ${strategy}`);
    const pre = PRESOLVERS_FOR[classify(p.formula)] ?? [];
    t.ok(out.strategy === strategy || pre.includes(out.strategy as never), `${line.id}: decided by its pinned strategy (${strategy}) or one of its pre-solvers (${pre.join(', ')}), not a fallback`);
    (decided[tag] ??= {})[String(out.strategy)] = (decided[tag][String(out.strategy)] ?? 0) + 1;
    // a pre-solver's UNSAT carries its checked contradiction
    if (out.status === 'UNSAT' && out.strategy !== strategy) t.ok(out.proof ?? out.contradiction, `${line.id}: pre-solver UNSAT with its proof`);
    if (out.status === 'SAT') t.ok(evaluate(line.query, out.model ?? {}), `${line.id}: model satisfies the query`);
  }
  t.same(seen, PINNED);
  t.same(decided, DECIDED_BY);
});

t.test('interval pre-solver: bounds-only conjunctions, with the proof', async (t) => {
  const unsat = solveIntervals(formula('(AND (GT x 5) (LT x 6))'), printTerm);
  t.same(unsat, { status: 'UNSAT', proof: { variable: 'x', lower: '(GT x 5)', upper: '(LT x 6)' } }, 'Int rounding closes (5, 6)');
  const real = solveIntervals(formula('(VAR x Real) (AND (GT x 5) (LT x 6))'), printTerm);
  t.equal(real?.status, 'SAT', 'the reals between 5 and 6');
  t.same(real?.status === 'SAT' && real.model, { x: '11/2' });
  const scaled = solveIntervals(formula('(AND (GTE (MULT 2 x) 7) (LTE (PLUS x 4) 8) (NOT (GT x 4)))'), printTerm);
  t.same(scaled, { status: 'SAT', model: { x: '4' } }, '2x ≥ 7 ∧ x + 4 ≤ 8 ∧ ¬(x > 4) over Int');
  const eq = solveIntervals(formula('(AND (EQ (MULT 2 x) 7))'), printTerm);
  t.equal(eq?.status, 'UNSAT', '2x = 7 has no Int solution');
  const strictReal = solveIntervals(formula('(VAR x Real) (AND (GTE x 1) (LT x 1))'), printTerm);
  t.equal(strictReal?.status, 'UNSAT');
  t.equal(solveIntervals(formula('(AND (GT x 5) (OR (LT x 3) (GT y 1)))'), printTerm), null, 'not a bounds conjunction: left to z3');
  // through the engine: the pre-solver decides, its model is re-checked by the evaluator
  const viaEngine = await solve({ query: '(AND (GTE x -3) (LTE x -1) (GT y 10))' });
  t.equal(viaEngine.status, 'SAT');
  t.equal(viaEngine.strategy, 'interval');
  t.same(viaEngine.model, { x: '-1', y: '11' });
  const proof = await solve({ query: '(AND (GT x 5) (LT x 3))' });
  t.equal(proof.status, 'UNSAT');
  t.same(proof.proof, { variable: 'x', lower: '(GT x 5)', upper: '(LT x 3)' });
});

t.test('difference pre-solver: shortest paths give a model; a negative cycle is a checked contradiction', async (t) => {
  const { solveDifferences } = await import('../../../../plugins/engines/logic/differences.js');
  const chain = formula('(AND (GTE a 0) (LT a b) (LT b c) (LTE c 2))');
  const m = solveDifferences(chain);
  t.ok(m && holds(chain.body, m), 'model satisfies the chain');
  t.equal(solveDifferences(formula('(AND (GTE a 0) (LT a b) (LT b c) (LTE c 1))')), null, 'negative cycle: no model');
  const viaEngine = await solve({ query: '(AND (GTE a 0) (LT a b) (LT b c) (LTE c 1))' });
  t.equal(viaEngine.status, 'UNSAT');
  t.equal(viaEngine.strategy, 'negative_cycle');
  t.same(viaEngine.contradiction, {
    rule: 'linear_combination',
    atoms: [
      { atom: '(GTE a 0)', times: '1' },
      { atom: '(LT a b)', times: '1' },
      { atom: '(LT b c)', times: '1' },
      { atom: '(LTE c 1)', times: '1' },
    ],
    sum: '1 <= 0',
  });
  const sat = await solve({ query: '(AND (GTE a 0) (LT a b) (LT b c) (LTE c 2) (EQ (MINUS c a) 2))' });
  t.equal(sat.status, 'SAT');
  t.equal(sat.strategy, 'difference_paths');
});

t.test('linear pre-solver: simplex + branch and bound finds integer models, leaves the rest to z3', async (t) => {
  const { solveLinearConjunction } = await import('../../../../plugins/engines/logic/simplex.js');
  const f = formula('(AND (EQ (PLUS (MULT 3 x) (MULT 2 y)) 12) (GT x 0) (GT y 0) (LT (MINUS x y) 5))');
  const m = solveLinearConjunction(f);
  t.ok(m && holds(f.body, m), 'an integer model of 3x + 2y = 12, x, y > 0');
  t.equal(solveLinearConjunction(formula('(AND (EQ (MULT 2 x) (PLUS (MULT 2 y) 1)))')), null, '2x = 2y + 1 has rational but no integer solutions');
  t.equal(solveLinearConjunction(formula('(AND (GT (PLUS x y) 3) (LT (PLUS x y) 2))')), null, 'infeasible');
  t.equal(solveLinearConjunction(formula('(AND (GT (PLUS x y) 3) (NEQ x 1))')), null, 'NEQ is not handled here');
  const big = formula('(AND (EQ (PLUS (MULT 3 x) (MULT 2 y)) 12) (GT x 10000000000000000000))');
  t.equal(solveLinearConjunction(big), null, 'magnitudes floating point cannot hold exactly are left to z3');
  const viaZ3 = await solve({ query: '(AND (EQ (PLUS (MULT 3 x) (MULT 2 y)) 12) (GT x 10000000000000000000))' });
  t.equal(viaZ3.status, 'SAT');
  t.equal(viaZ3.strategy, 'linear_simplex');
  t.ok(evaluate('(AND (EQ (PLUS (MULT 3 x) (MULT 2 y)) 12) (GT x 10000000000000000000))', viaZ3.model ?? {}));
  const unsat = await solve({ query: '(AND (EQ (MULT 2 x) (PLUS (MULT 2 y) 1)) (GT x 0))' });
  t.equal(unsat.status, 'UNSAT');
  t.equal(unsat.strategy, 'linear_simplex', 'no contradiction among difference atoms: UNSAT is z3’s word');
  const sat = await solve({ query: '(AND (EQ (PLUS (MULT 3 x) (MULT 2 y)) 12) (GT x 0) (GT y 0))' });
  t.equal(sat.status, 'SAT');
  t.equal(sat.strategy, 'linear_branch_bound');
});

t.test('the engine evaluator is exact and refuses what it cannot evaluate', async (t) => {
  const f = formula('(AND (EQ (DIV x 2) -4) (EQ (MOD x 2) 1) (EQ (DIV 7 -2) -3))');
  t.equal(holds(f.body, { x: '-7' }), true, 'SMT-LIB div/mod');
  t.equal(holds(f.body, { x: '-8' }), false);
  t.equal(holds(formula('(VAR r Real) (GT (MULT r r) 2)').body, { r: '1.4142?' }), null, 'not exact: z3 re-checks');
  t.equal(holds(formula('(GT (DIV x y) 0)').body, { x: '1', y: '0' }), null, 'division by zero is the model’s choice');
  t.equal(holds(formula('(FORALL ((k Int)) (GT k x))').body, { x: '0' }), null);
});

t.test('finite-domain queries are searched or bit-blasted (or handed to the default solver) and re-checked', async (t) => {
  // single-variable Int atoms with small domains are bit-blasted; a nonlinear side condition is not
  const out = await solve({ query: '(AND (GTE p 0) (LTE p 1) (OR (EQ p 1) (EQ q 0)) (GTE q 0) (LTE q 1))' });
  t.equal(out.status, 'SAT');
  t.equal(out.shape, 'finite');
  t.ok(['finite_search', 'bit_blast', 'default'].includes(String(out.strategy)));
  t.ok(evaluate('(AND (GTE p 0) (LTE p 1) (OR (EQ p 1) (EQ q 0)) (GTE q 0) (LTE q 1))', out.model ?? {}));
});
