import { init } from 'z3-solver';
import type { Solver, Z3LowLevel } from 'z3-solver';
import { checkNow, isTrap } from './check.js';
import { parseQuery, type Formula, type Term } from './dsl.js';
import { holds } from './evaluate.js';
import { classify } from './shape.js';
import { presolve } from './presolve.js';
import { STRATEGIES, STRATEGY_FOR, type Strategy, type StrategyName } from './strategy.js';
import { DEFAULT_TIMEOUT_MS, ENGINE_VERSION, MAX_TIMEOUT_MS, type SolveInput, type SolveOutcome } from './outcome.js';
import { OPS, type Sort, type Z3Arith, type Z3Bool, type Z3Ctx, type Z3Term } from './ops.js';
import { instantiateWith, z3Module } from './z3-wasm.js';

/**
 * Runs inside the dedicated z3 worker (one thread): z3's wasm is initialised once per worker and
 * one Context serves every query. Each query is classified by shape (shape.ts) and solved by the
 * strategy measured best for that shape (strategy.ts): the interval pre-solver, or one long-lived
 * z3 solver per strategy used with push/pop (a fresh Solver costs 5–20 ms of set-up per query, a
 * fresh init 250 ms+). Functions here take and return plain JSON; the same functions run
 * in-process for the bench and the corpus test.
 */
interface Z3State {
  api: Z3LowLevel;
  ctx: Z3Ctx;
  solvers: Map<StrategyName, Solver<'logic'>>;
  version: string;
  decimal: (ctx: Z3Ctx, t: Z3Term) => string;
  /** set when a trap left this instance untrusted (discard) */
  broken?: boolean;
}

let state: Promise<Z3State> | null = null;
/** the timeout each long-lived solver was last given (parameters outlive push/pop) */
const timeouts = new WeakMap<Solver<'logic'>, number>();

function z3State(): Promise<Z3State> {
  // z3's binary without its name section (z3-wasm.ts); should that fail, z3-solver loads the whole file
  state ??= z3Module().then((module) => init({ instantiateWasm: instantiateWith(module) }), () => init()).then((api) => {
    const ctx: Z3Ctx = new api.Context('logic');
    return {
      api,
      ctx,
      solvers: new Map(),
      version: `${ENGINE_VERSION}; ${api.getFullVersion()}`,
      decimal: (c, t) => api.Z3.get_numeral_decimal_string(c.ptr, t.ast, 20),
    };
  });
  state.catch(() => {
    state = null;
  });
  return state;
}

/**
 * After a trap the instance is not trusted again: the next query loads a fresh one. Its timer
 * thread holds the old wasm memory, so it is ended too and the old instance can be collected.
 */
function discard(z: Z3State): void {
  z.broken = true;
  state = null;
  try {
    (z.api.em.PThread as { terminateAllThreads(): void }).terminateAllThreads();
  } catch {
    // nothing more to free
  }
}

function makeSolver(ctx: Z3Ctx, st: Strategy): Solver<'logic'> {
  if (st.tactics) {
    const steps = st.tactics.map((t) => (typeof t === 'string' ? t : ctx.With(t.tactic, t.params)));
    const [first, second, ...rest] = steps;
    return (second === undefined ? (typeof first === 'string' ? new ctx.Tactic(first) : first) : ctx.AndThen(first, second, ...rest)).solver();
  }
  const solver = new ctx.Solver();
  for (const [k, v] of Object.entries(st.params ?? {})) solver.set(k, v);
  return solver;
}

function solverFor(z: Z3State, name: StrategyName): Solver<'logic'> {
  let s = z.solvers.get(name);
  if (!s) {
    s = makeSolver(z.ctx, STRATEGIES[name]);
    z.solvers.set(name, s);
  }
  return s;
}

/**
 * Loads z3 and runs one tiny query per z3 strategy so the first real query pays neither the wasm
 * load nor a solver's first-check set-up (measured: the first check in a fresh context is ~0.3 s).
 */
export async function warmup(): Promise<{ engine_version: string }> {
  const z = await z3State();
  for (const q of [
    '(AND (GT warmup_x 0) (LT (PLUS warmup_x warmup_y) 2) (GT warmup_y 0))',
    '(AND (LT warmup_x warmup_y) (OR (LT warmup_y warmup_z) (LT warmup_z warmup_x)))',
    '(AND (OR (EQ warmup_x 1) (EQ warmup_y 1)) (OR (EQ warmup_x 0) (EQ warmup_y 0)))',
    '(AND (GT (MULT warmup_x warmup_y) 2) (LT warmup_x 3))',
  ]) await solve({ query: q });
  return { engine_version: z.version };
}

/**
 * Emscripten threads z3 has started in this worker (each a Node worker thread with its own wasm
 * instance, alive until the worker ends). Searches run on this thread (check.ts); z3's timer thread,
 * which enforces the `timeout` parameter, is the one z3 starts.
 */
export async function z3Threads(): Promise<{ pthreads: number }> {
  const { api } = await z3State();
  const p = api.em.PThread as { runningWorkers: unknown[]; unusedWorkers: unknown[] };
  return { pthreads: p.runningWorkers.length + p.unusedWorkers.length };
}

export type { SolveInput, SolveOutcome };

export async function solve(input: SolveInput): Promise<SolveOutcome> {
  const parsed = parseQuery(String(input.query ?? ''));
  if (!parsed.ok) {
    return {
      status: parsed.kind === 'unknown_operator' ? 'BLOCKED' : 'ERROR',
      kind: parsed.kind,
      error: parsed.message,
      ...(parsed.operator !== undefined ? { operator: parsed.operator } : {}),
      engine_version: ENGINE_VERSION,
    };
  }
  const timeoutMs = clampTimeout(input.timeoutMs);
  let z = await z3State();
  // a query that was waiting for this instance when another one's trap discarded it takes a fresh one
  while (z.broken) z = await z3State();
  // synchronous from here on: queries cannot interleave on the shared solvers' push/pop
  return decide(z, parsed.formula, timeoutMs);
}

function clampTimeout(ms: unknown): number {
  return typeof ms === 'number' && Number.isInteger(ms) && ms > 0 ? Math.min(ms, MAX_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS;
}

const elapsed = (since: number): number => Math.round((performance.now() - since) * 100) / 100;

function decide(z: Z3State, f: Formula, timeoutMs: number): SolveOutcome {
  const started = performance.now();
  const shape = classify(f);
  const pre = presolve(f, shape);
  if (pre) return { ...pre, canonical: f.canonical, engine_version: z.version, shape, solve_ms: elapsed(started) };
  // a bounds query the interval pre-solver could not settle is a linear one for z3
  const name = STRATEGY_FOR[shape] === 'interval' ? 'linear_simplex' : STRATEGY_FOR[shape];
  const first = check(z, f, timeoutMs, name, started);
  if (!first.retry || name === 'default') return { ...first.outcome, shape };
  // a strategy outside its fragment answers unknown: z3's default solver decides, same budget
  const left = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
  const second = check(z, f, left, 'default', started);
  return { ...second.outcome, shape };
}

function check(z: Z3State, f: Formula, timeoutMs: number, name: StrategyName, started: number): { outcome: SolveOutcome; retry: boolean } {
  const { ctx } = z;
  const free = new Map(f.vars.map((v) => [v.name, constant(ctx, v.name, v.sort)]));
  const solver = solverFor(z, name);
  solver.push();
  // z3's own timeout is the first line, the pool's deadline (main thread, kills this worker) the
  // second. We deliberately do not call ctx.interrupt() from a timer: measured, an interrupt that
  // lands as a check finishes makes z3-solver report `sat` with no model and poisons the next
  // query on the context (an UNSAT formula answered SAT).
  let fresh = false;
  let trapped = false;
  try {
    // a parameter update makes z3 re-read every solver parameter at the next check: only when it changes
    if (timeouts.get(solver) !== timeoutMs) {
      solver.set('timeout', timeoutMs);
      timeouts.set(solver, timeoutMs);
    }
    const formula = compile(ctx, f.body, free, []) as Z3Bool;
    solver.add(formula);
    const result = checkNow(z.api, ctx, solver);
    const base = { canonical: f.canonical, engine_version: z.version, strategy: name, solve_ms: elapsed(started) };
    if (result === 'unsat') return { outcome: { status: 'UNSAT', ...base }, retry: false };
    if (result === 'sat') {
      const m = solver.model();
      const model: Record<string, string> = {};
      for (const v of f.vars) model[v.name] = valueString(z, m.eval(free.get(v.name)!, true) as Z3Term);
      // a SAT verdict must stand on its model: the engine's own evaluator re-checks it exactly;
      // where it cannot (irrational values, division by zero) z3's evaluation of the model does,
      // and quantified formulas (which stay symbolic under evaluation) keep z3's word
      const own = holds(f.body, model);
      const ok = own ?? (hasQuantifier(f.body) || ctx.isTrue(m.eval(formula, true)));
      if (!ok) {
        fresh = true;
        return { outcome: { status: 'ERROR', kind: 'unknown', error: 'solver model does not satisfy the formula', ...base }, retry: false };
      }
      return { outcome: { status: 'SAT', model, ...base }, retry: false };
    }
    fresh = true;
    const reason = solver.reasonUnknown();
    const timedOut = /timeout|canceled|interrupted/i.test(reason);
    return timedOut
      ? { outcome: { status: 'ERROR', kind: 'timeout', error: `solver timeout after ${timeoutMs} ms`, ...base }, retry: false }
      : { outcome: { status: 'ERROR', kind: 'unknown', error: `solver could not decide the formula (${reason})`, ...base }, retry: true };
  } catch (err) {
    // a z3 API error is no verdict; report it (without a stack) instead of crashing the worker task
    fresh = true;
    const msg = err instanceof Error ? err.message.slice(0, 200) : 'unknown failure';
    // a trap anywhere in z3 (the search, or reading the model after it) leaves the instance untrusted
    trapped = isTrap(err);
    return { outcome: { status: 'ERROR', kind: 'unknown', error: `solver error: ${msg}`, canonical: f.canonical, engine_version: z.version }, retry: !trapped };
  } finally {
    if (trapped) discard(z);
    else {
      try {
        solver.pop();
      } catch {
        fresh = true;
      }
    }
    // after an unfinished search or an API error the solver may hold state we do not want to carry over
    if (fresh && !trapped) {
      z.solvers.delete(name);
      solver.release();
    }
  }
}

function hasQuantifier(t: Term): boolean {
  return t.kind === 'app' && (t.binders !== undefined || t.args.some(hasQuantifier));
}

export function constant(ctx: Z3Ctx, name: string, sort: Sort): Z3Term {
  return sort === 'Bool' ? ctx.Bool.const(name) : sort === 'Real' ? ctx.Real.const(name) : ctx.Int.const(name);
}

export function compile(ctx: Z3Ctx, t: Term, free: Map<string, Z3Term>, scope: { name: string; c: Z3Term }[]): Z3Term {
  switch (t.kind) {
    case 'int':
      return ctx.Int.val(t.value);
    case 'real':
      return ctx.Real.val(t.value);
    case 'bool':
      return ctx.Bool.val(t.value);
    case 'var': {
      const c = t.bound ? scope.find((s) => s.name === t.name)?.c : free.get(t.name);
      if (!c) throw new Error(`unbound variable ${t.name}`);
      return c;
    }
    case 'app': {
      const op = OPS.get(t.op);
      if (!op) throw new Error(`operator ${t.op} missing from the table`);
      const bound = (t.binders ?? []).map((b) => ({ name: b.name, c: constant(ctx, b.name, b.sort) }));
      const inner = bound.length ? [...bound, ...scope] : scope;
      const args = t.args.map((a) => compile(ctx, a, free, inner));
      return op.compile(ctx, args, t.args.map((a) => a.sort), bound.map((b) => b.c));
    }
  }
}

/** Ints as integers, rationals as `n/d`, algebraic reals as z3's decimal approximation ending in `?`. */
function valueString(z: Z3State, v: Z3Term): string {
  const { ctx } = z;
  if (ctx.isIntVal(v)) return v.asString();
  if (ctx.isRealVal(v)) {
    const { numerator, denominator } = v.value();
    return denominator === 1n ? numerator.toString() : `${numerator}/${denominator}`;
  }
  if (ctx.isTrue(v)) return 'true';
  if (ctx.isFalse(v)) return 'false';
  return z.decimal(ctx, v as Z3Arith);
}
