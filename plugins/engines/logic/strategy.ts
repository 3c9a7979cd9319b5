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
 * | difference | chain, scheduling | pre-solvers (negative cycle, disjunctive overload, shortest paths, ordered schedule); otherwise smt, `arith.solver=3` (difference-logic solver) | logic-094: < 1 ms by overload; in z3 ~140 ms (difference logic) vs ~330 (simplex) / ~780 (default) |
 * | finite | cnf (planted, pigeonhole) | finite-domain search (SAT); otherwise bit-blast to SAT (`lia2pb`, `pb2bv`, `bit-blast`, `sat`) | planted cnf 1–10 ms searched; in z3 the cnf tag ~90 ms bit-blasted vs ~140 (simplex) / ~230 (default) |
 * | linear | linear (planted, cycle), small | pre-solvers (negative cycle, float simplex + branch and bound); otherwise smt, `arith.solver=2` (simplex) | the pre-solvers decide all 26 corpus lines; in z3 the tag took ~230–330 ms vs ~450 (default); random seeds 0–9 spread 215–456 ms with no seed best across runs, so the default seed stays |
 * | boolean, nonlinear, quantified | — | z3's default solver | nothing measured beats it |
 *
 * A strategy that answers `unknown` for any reason but a timeout (a tactic outside its fragment)
 * is followed by the default solver within the same time budget: a strategy can only make an
 * answer faster, never turn a decided query undecided. No portfolio: z3-solver cannot run two
 * checks at once inside one wasm instance (tried: it crashed), so racing strategies needs a second
 * worker thread with its own z3 (memory, warm-up, a second core); on the shared 2-core dev machine
 * that could not be shown to pay, and with the pre-solvers the lines that still reach z3 take 2–40 ms,
 * so none is run (docs/engines/logic.md).
 */
export type StrategyName =
  | 'interval'
  | 'negative_cycle'
  | 'disjunctive_overload'
  | 'difference_paths'
  | 'schedule_order'
  | 'linear_branch_bound'
  | 'finite_search'
  | 'difference_logic'
  | 'bit_blast'
  | 'linear_simplex'
  | 'default';

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
  negative_cycle: { name: 'negative_cycle' },
  disjunctive_overload: { name: 'disjunctive_overload' },
  difference_paths: { name: 'difference_paths' },
  schedule_order: { name: 'schedule_order' },
  finite_search: { name: 'finite_search' },
  linear_branch_bound: { name: 'linear_branch_bound' },
  difference_logic: { name: 'difference_logic', params: { 'smt.arith.solver': 3 } },
  bit_blast: { name: 'bit_blast', tactics: [LHS, 'propagate-values', 'normalize-bounds', 'lia2pb', LHS, 'pb2bv', 'bit-blast', 'sat'] },
  linear_simplex: { name: 'linear_simplex', params: { 'smt.arith.solver': 2 } },
  default: { name: 'default' },
};

/**
 * Pre-solvers tried, in order, before the shape's z3 strategy (presolve.ts); each answers only what
 * it can prove. Cheap refutations come first: a negative cycle among the difference atoms of a
 * conjunction (chain, the cycle planted in linear systems), an overloaded disjunctive schedule.
 */
export const PRESOLVERS_FOR: Partial<Record<Shape, StrategyName[]>> = {
  bounds: ['interval'],
  difference: ['negative_cycle', 'disjunctive_overload', 'difference_paths', 'schedule_order'],
  linear: ['negative_cycle', 'linear_branch_bound'],
  finite: ['finite_search'],
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
