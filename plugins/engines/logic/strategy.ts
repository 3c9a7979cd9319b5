import type { Shape } from './shape.js';

/**
 * How each query shape is solved. Chosen by measurement on the shared corpus (bench/corpus,
 * `npm run bench -- logic` prints ops/s and p99 per tag; docs/engines/logic.md has the table), CPU
 * time per tag on this VM, warm, one long-lived solver per strategy with push/pop (a fresh solver
 * costs 5–20 ms of set-up per query, more than most of these queries):
 *
 * | shape | corpus tags | strategy | why |
 * |---|---|---|---|
 * | bounds | small (bounds-only lines) | interval pre-solver | no search needed; the contradiction or the model is the proof |
 * | difference | chain, scheduling | smt, `arith.solver=3` (difference-logic solver) | logic-094 ~140 ms vs ~330 (simplex) / ~780 (default) |
 * | finite | cnf (planted, pigeonhole) | bit-blast to SAT (`lia2pb`, `pb2bv`, `bit-blast`, `sat`) | cnf tag ~90 ms vs ~140 (simplex) / ~230 (default) |
 * | linear | linear (planted, cycle), small | smt, `arith.solver=2`, `random_seed=3` | linear tag ~230 ms vs ~290 (seed 0) / ~450 (default) |
 * | boolean, nonlinear, quantified | — | z3's default solver | nothing measured beats it |
 *
 * A strategy that answers `unknown` for any reason but a timeout (a tactic outside its fragment)
 * is followed by the default solver within the same time budget: a strategy can only make an
 * answer faster, never turn a decided query undecided. No portfolio across the two z3 workers:
 * on the shared 2-core machine a second search only competes with the first for the same cores
 * (measured: no gain on any tag), so it does not pay.
 */
export type StrategyName = 'interval' | 'difference_logic' | 'bit_blast' | 'linear_simplex' | 'default';

export interface Strategy {
  name: StrategyName;
  /** solver parameters (`smt.*`), for smt-based strategies */
  params?: Record<string, number | boolean>;
  /** a tactic pipeline turned into a solver; each step a tactic name or a tactic with parameters */
  tactics?: Array<string | { tactic: string; params: Record<string, number | boolean> }>;
}

const LHS = { tactic: 'simplify', params: { arith_lhs: true, som: true } };

export const STRATEGIES: Record<StrategyName, Strategy> = {
  interval: { name: 'interval' },
  difference_logic: { name: 'difference_logic', params: { 'smt.arith.solver': 3 } },
  bit_blast: { name: 'bit_blast', tactics: [LHS, 'propagate-values', 'normalize-bounds', 'lia2pb', LHS, 'pb2bv', 'bit-blast', 'sat'] },
  linear_simplex: { name: 'linear_simplex', params: { 'smt.arith.solver': 2, 'smt.random_seed': 3 } },
  default: { name: 'default' },
};

export const STRATEGY_FOR: Record<Shape, StrategyName> = {
  bounds: 'interval',
  difference: 'difference_logic',
  finite: 'bit_blast',
  linear: 'linear_simplex',
  boolean: 'default',
  nonlinear: 'default',
  quantified: 'default',
};
