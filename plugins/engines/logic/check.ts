import { Z3_error_code, Z3_lbool } from 'z3-solver';
import type { Solver, Z3LowLevel } from 'z3-solver';
import type { Z3Ctx } from './ops.js';

/**
 * `solver.check()` of z3-solver runs the search on an emscripten pthread: a second Node worker
 * (isolate, z3's glue, a wasm instance; measured ~16 MB RSS) that never exits. This engine already
 * runs in its own worker thread, so the search runs here, synchronously, through the exported C
 * function: it blocks nothing but this worker, and the pool's deadline still ends it (a terminated
 * worker thread stops inside wasm too). z3's `timeout` parameter keeps working: z3 arms it from its
 * own timer thread (one pthread, reused by every check).
 */
export type CheckResult = 'sat' | 'unsat' | 'unknown';

/**
 * The search stopped inside wasm without returning (a trap, an abort): z3's memory may be left
 * half-updated, so that instance must not answer again. Z3's own errors are not this: z3 catches
 * them at its API boundary and leaves a code on the context.
 */
export class Z3Trap extends Error {
  override name = 'Z3Trap';
}

/** a trap in the search, or a WebAssembly.RuntimeError (trap, emscripten abort) from any other z3 call */
export function isTrap(err: unknown): boolean {
  return err instanceof Z3Trap || (err instanceof Error && err.name === 'RuntimeError');
}

export function checkNow(api: Z3LowLevel, ctx: Z3Ctx, solver: Solver<'logic'>): CheckResult {
  let result: number;
  try {
    result = api.em._Z3_solver_check(ctx.ptr, solver.ptr);
  } catch (err) {
    throw new Z3Trap(`z3 stopped inside the search: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200));
  }
  // the context has z3-solver's no-op error handler: an API error leaves its code on the context,
  // which the high-level API checks after every call (its `check`); so does this
  const code = api.Z3.get_error_code(ctx.ptr);
  if (code !== Z3_error_code.Z3_OK) throw new Error(api.Z3.get_error_msg(ctx.ptr, code));
  switch (result) {
    case Z3_lbool.Z3_L_TRUE:
      return 'sat';
    case Z3_lbool.Z3_L_FALSE:
      return 'unsat';
    case Z3_lbool.Z3_L_UNDEF:
      return 'unknown';
    default:
      throw new Error(`z3 returned no truth value (${result})`);
  }
}
