import { init } from 'z3-solver';
import type { Solver } from 'z3-solver';
import { parseQuery, type Formula, type Term } from './dsl.js';
import { DEFAULT_TIMEOUT_MS, ENGINE_VERSION, MAX_TIMEOUT_MS, type SolveInput, type SolveOutcome } from './outcome.js';
import { OPS, type Sort, type Z3Arith, type Z3Bool, type Z3Ctx, type Z3Term } from './ops.js';

/**
 * Runs inside the dedicated z3 worker (one thread): z3's wasm is initialised once per worker and
 * one Context plus one long-lived Solver serve every query with push/pop (measured: ~6 ms per
 * small query against ~18 ms for a fresh Solver, and 250 ms+ for a fresh init). Functions here take
 * and return plain JSON. The same functions run in-process for the bench and the corpus test.
 */
interface Z3State {
  ctx: Z3Ctx;
  solver: Solver<'logic'>;
  version: string;
  decimal: (ctx: Z3Ctx, t: Z3Term) => string;
}

let state: Promise<Z3State> | null = null;
/** z3 checks are async; one query at a time keeps push/pop on the shared solver consistent */
let queue: Promise<unknown> = Promise.resolve();

function z3State(): Promise<Z3State> {
  state ??= init().then((api) => {
    const ctx: Z3Ctx = new api.Context('logic');
    return {
      ctx,
      solver: new ctx.Solver(),
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
 * Loads z3 and runs one tiny query so the first real query pays neither the wasm load nor the
 * solver's first-check set-up (measured: the first check in a fresh context is ~0.3 s, later ones ms).
 */
export async function warmup(): Promise<{ engine_version: string }> {
  const z = await z3State();
  await solve({ query: '(AND (GT warmup_x 0) (LT warmup_x 2))' });
  return { engine_version: z.version };
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
  const z = await z3State();
  const run = queue.then(() => check(z, parsed.formula, timeoutMs));
  queue = run.catch(() => undefined);
  return run;
}

function clampTimeout(ms: unknown): number {
  return typeof ms === 'number' && Number.isInteger(ms) && ms > 0 ? Math.min(ms, MAX_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS;
}

async function check(z: Z3State, f: Formula, timeoutMs: number): Promise<SolveOutcome> {
  const { ctx } = z;
  const started = performance.now();
  const free = new Map(f.vars.map((v) => [v.name, constant(ctx, v.name, v.sort)]));
  const solver = z.solver;
  solver.push();
  // z3's own timeout is the first line, the pool's deadline (main thread, kills this worker) the
  // second. We deliberately do not call ctx.interrupt() from a timer: measured, an interrupt that
  // lands as a check finishes makes z3-solver report `sat` with no model and poisons the next
  // query on the context (an UNSAT formula answered SAT).
  let fresh = false;
  try {
    solver.set('timeout', timeoutMs);
    const formula = compile(ctx, f.body, free, []) as Z3Bool;
    solver.add(formula);
    const result = await solver.check();
    const solve_ms = Math.round((performance.now() - started) * 100) / 100;
    const base = { canonical: f.canonical, engine_version: z.version, solve_ms };
    if (result === 'unsat') return { status: 'UNSAT', ...base };
    if (result === 'sat') {
      const m = solver.model();
      // a SAT verdict must stand on its model: re-evaluate the formula under it (quantifiers may
      // stay symbolic under evaluation, so only quantifier-free formulas are checked this way)
      if (!hasQuantifier(f.body) && !ctx.isTrue(m.eval(formula, true))) {
        fresh = true;
        return { status: 'ERROR', kind: 'unknown', error: 'solver model does not satisfy the formula', ...base };
      }
      const model: Record<string, string> = {};
      for (const v of f.vars) model[v.name] = valueString(z, m.eval(free.get(v.name)!, true) as Z3Term);
      return { status: 'SAT', model, ...base };
    }
    fresh = true;
    const reason = solver.reasonUnknown();
    const timedOut = /timeout|canceled|interrupted/i.test(reason);
    return timedOut
      ? { status: 'ERROR', kind: 'timeout', error: `solver timeout after ${timeoutMs} ms`, ...base }
      : { status: 'ERROR', kind: 'unknown', error: `solver could not decide the formula (${reason})`, ...base };
  } catch (err) {
    // a z3 API error is no verdict; report it (without a stack) instead of crashing the worker task
    fresh = true;
    const msg = err instanceof Error ? err.message.slice(0, 200) : 'unknown failure';
    return { status: 'ERROR', kind: 'unknown', error: `solver error: ${msg}`, canonical: f.canonical, engine_version: z.version };
  } finally {
    try {
      solver.pop();
    } catch {
      fresh = true;
    }
    // after an unfinished search or an API error the solver may hold state we do not want to carry over
    if (fresh) {
      z.solver = new ctx.Solver();
      solver.release();
    }
  }
}

function hasQuantifier(t: Term): boolean {
  return t.kind === 'app' && (t.binders !== undefined || t.args.some(hasQuantifier));
}

function constant(ctx: Z3Ctx, name: string, sort: Sort): Z3Term {
  return sort === 'Bool' ? ctx.Bool.const(name) : sort === 'Real' ? ctx.Real.const(name) : ctx.Int.const(name);
}

function compile(ctx: Z3Ctx, t: Term, free: Map<string, Z3Term>, scope: { name: string; c: Z3Term }[]): Z3Term {
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
