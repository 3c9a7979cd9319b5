import { type Formula, printTerm } from './dsl.js';
import { type Contradiction, checkCombination } from './certificate.js';
import { negativeCycle, solveDifferences } from './differences.js';
import { type OverloadProof, checkOverload, findOverload, scheduleModel } from './disjunctive.js';
import { holds } from './evaluate.js';
import { solveFinite } from './finite.js';
import { solveIntervals } from './intervals.js';
import type { Shape } from './shape.js';
import { solveLinearConjunction } from './simplex.js';
import { PRESOLVERS_FOR, type StrategyName } from './strategy.js';

/**
 * The pre-solvers of a shape, in order (strategy.ts), before any z3 search. Each answers only what
 * it can prove: SAT with a model that the engine's own evaluator re-checks here, or UNSAT with a
 * contradiction that an independent checker re-derives from the formula here. A pre-solver that
 * cannot do either answers nothing and the shape's z3 strategy decides.
 */
export type PreAnswer =
  | { status: 'SAT'; strategy: StrategyName; model: Record<string, string> }
  | { status: 'UNSAT'; strategy: StrategyName; proof?: { variable: string; lower: string; upper: string }; contradiction?: Contradiction | OverloadProof };

export function presolve(f: Formula, shape: Shape): PreAnswer | null {
  for (const name of PRESOLVERS_FOR[shape] ?? []) {
    const answer = run(name, f);
    if (answer) return answer;
  }
  return null;
}

function sat(name: StrategyName, f: Formula, model: Record<string, string> | null): PreAnswer | null {
  return model && holds(f.body, model) === true ? { status: 'SAT', strategy: name, model } : null;
}

function run(name: StrategyName, f: Formula): PreAnswer | null {
  switch (name) {
    case 'interval': {
      const r = solveIntervals(f, printTerm);
      if (r?.status === 'UNSAT') return { status: 'UNSAT', strategy: name, proof: r.proof };
      return r?.status === 'SAT' ? sat(name, f, r.model) : null;
    }
    case 'negative_cycle': {
      const cert = negativeCycle(f);
      const contradiction = cert && checkCombination(f, cert, printTerm);
      return contradiction ? { status: 'UNSAT', strategy: name, contradiction } : null;
    }
    case 'disjunctive_overload': {
      const proof = findOverload(f, printTerm);
      return proof && checkOverload(f, proof, printTerm) ? { status: 'UNSAT', strategy: name, contradiction: proof } : null;
    }
    case 'difference_paths':
      return sat(name, f, solveDifferences(f));
    case 'schedule_order':
      return sat(name, f, scheduleModel(f));
    case 'linear_branch_bound':
      return sat(name, f, solveLinearConjunction(f));
    case 'finite_search':
      return sat(name, f, solveFinite(f));
    default:
      return null;
  }
}
