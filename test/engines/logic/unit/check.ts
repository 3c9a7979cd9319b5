import t from 'tap';
import { init, Z3_error_code, Z3_lbool } from 'z3-solver';
import type { Solver, Z3LowLevel } from 'z3-solver';
import { checkNow, isTrap, Z3Trap } from '../../../../plugins/engines/logic/check.js';
import type { Z3Ctx } from '../../../../plugins/engines/logic/ops.js';

const api = await init();
const ctx = new api.Context('logic') as unknown as Z3Ctx;

t.test('the synchronous check answers as solver.check() does', async (t) => {
  const x = ctx.Int.const('x');
  for (const [formula, expected] of [
    [ctx.And(x.gt(5), x.lt(7)), 'sat'],
    [ctx.And(x.gt(5), x.lt(6)), 'unsat'],
  ] as const) {
    const solver = new ctx.Solver();
    solver.add(formula);
    t.equal(checkNow(api, ctx, solver), expected, formula.sexpr());
    t.equal(await solver.check(), expected, 'same as the async API');
  }
  // a budget z3 runs out of is `unknown`, with the reason z3 gives
  const y = ctx.Int.const('y');
  const z = ctx.Int.const('z');
  const cubes = new ctx.Solver();
  cubes.set('timeout', 200);
  cubes.add(x.mul(x).mul(x).add(y.mul(y).mul(y)).add(z.mul(z).mul(z)).eq(33));
  t.equal(checkNow(api, ctx, cubes), 'unknown');
  t.match(cubes.reasonUnknown(), /timeout|canceled/);
});

/** the low-level surface checkNow uses, with the search's return and the context's error code chosen */
function fake(run: () => number, code = Z3_error_code.Z3_OK): Z3LowLevel {
  return {
    em: { _Z3_solver_check: run },
    Z3: { get_error_code: () => code, get_error_msg: () => 'the solver was given an invalid argument' },
  } as unknown as Z3LowLevel;
}
const solver = { ptr: 1 } as unknown as Solver<'logic'>;
const fakeCtx = { ptr: 1 } as unknown as Z3Ctx;

t.test('a z3 error left on the context is thrown with z3 own message, as the high-level API does', async (t) => {
  const err = t.throws(() => checkNow(fake(() => Z3_lbool.Z3_L_UNDEF, Z3_error_code.Z3_INVALID_ARG), fakeCtx, solver)) as Error;
  t.match(err.message, /invalid argument/);
  t.notOk(isTrap(err), 'a z3 error is not a trap: the instance stays in use');
});

t.test('a search that does not return is a trap; an unknown truth value is an error', async (t) => {
  const trap = t.throws(() =>
    checkNow(fake(() => { const e = new Error('unreachable'); e.name = 'RuntimeError'; throw e; }), fakeCtx, solver),
  ) as Error;
  t.ok(trap instanceof Z3Trap && isTrap(trap), 'the instance is not used again');
  t.match(trap.message, /stopped inside the search: unreachable/);
  const odd = t.throws(() => checkNow(fake(() => 7), fakeCtx, solver)) as Error;
  t.match(odd.message, /no truth value \(7\)/);
});
