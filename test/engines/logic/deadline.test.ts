import { readdirSync } from 'node:fs';
import t from 'tap';
import { pino } from 'pino';
import { WorkerPools } from '../../../core/workers/pools.js';
import { createLogicVerifier } from '../../../plugins/engines/logic/verifier.js';
import { waitFor } from '../../helpers/wait.js';

/** Cubes summing to 33: z3 cannot finish it in a minute. */
const HARD_CUBES = '(EQ (PLUS (POW x 3) (POW y 3) (POW z 3)) 33)';
/** threads of this process (Linux): the pool's z3 worker and every thread z3 started in it are among them */
const threads = (): number => readdirSync('/proc/self/task').length;
const module = new URL('../../../plugins/engines/logic/engine.js', import.meta.url);

/**
 * z3's search runs synchronously inside the worker (check.ts), so only the pool's deadline can stop
 * a search z3 does not stop itself: the deadline must abort the task, terminate the thread in the
 * middle of wasm, and leave the pool able to serve the next query from a fresh thread.
 */
t.test('the pool deadline stops a synchronous z3 search that outlives it, and the next query is served', async (t) => {
  const pools = new WorkerPools(1, pino({ level: 'silent' }));
  t.teardown(() => pools.close());
  // the verifier's real flow over the real pool and engine, except that z3's own timeout is lifted
  // to a minute and the pool gets one second: z3 is still searching when the deadline fires
  const verifier = createLogicVerifier({
    engine: {
      run: <O>(fn: string, input: unknown, opts?: { timeoutMs?: number }) =>
        pools.run<O>({ pool: 'z3', threads: 1, module, fn, input: { ...(input as object), timeoutMs: 60_000 }, timeoutMs: Math.min(opts?.timeoutMs ?? 1000, 1000) }),
    },
    translator: () => undefined,
  });
  // z3 loaded before the clock starts, so the deadline lands in the search and not in wasm start-up
  const warm = () => pools.run({ pool: 'z3', threads: 1, module, fn: 'warmup', input: null, timeoutMs: 60_000 });
  await warm();
  const before = threads();

  const slow = await verifier.verify({ query: HARD_CUBES });
  t.match(slow.body, {
    status: 'ERROR',
    error: /worker deadline/,
    diagnostic: { status: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'logic_verifier.timeout' } },
  });

  await warm();
  const next = await verifier.verify({ query: '(AND (GT x 5) (LT x 7))' });
  t.match(next.body, { status: 'SAT', model: { x: '6' }, diagnostic: { status: 'VERIFIED' } });
  // the killed worker took z3's timer thread with it: the replacement has the same threads, no more
  await waitFor(() => threads() === before, { what: `${before} threads (now ${threads()})` });
  const z3 = await pools.run<{ pthreads: number }>({ pool: 'z3', threads: 1, module, fn: 'z3Threads', input: null, timeoutMs: 60_000 });
  t.ok(z3.pthreads <= 1, `z3 threads in the replacement worker: ${z3.pthreads}`);
});
