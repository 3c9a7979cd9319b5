import t, { type Test } from 'tap';
import { pino } from 'pino';
import { PiscinaPools } from '../../core/workers/piscina-pools.js';
import { EngineError, SLOTS_PER_THREAD } from '../../core/workers/pools.js';

// The bench's piscina variant (BENCH_POOL=piscina) runs tasks without per-task abort signals; these
// pin that it keeps the own pool's guarantees all the same: a deadline ends a runaway task by
// ending its thread, the tasks that were sent to that thread behind it run on the next one, a task
// taken back before it started never runs, and a crash fails only the task that caused it.
const module = new URL('../fixtures/test-engine.js', import.meta.url);

function onePool(t: Test, threads = 1) {
  const pools = new PiscinaPools(threads, pino({ level: 'silent' }), 8, 60_000);
  t.teardown(() => pools.close());
  const name = `p${Math.random()}`;
  pools.prepare(name);
  const run = <O>(fn: string, input: unknown, timeoutMs = 30_000, signal?: AbortSignal) => pools.run<O>({ pool: name, module, fn, input, timeoutMs, signal });
  return { pools, run, name };
}

const report = (r: ReturnType<typeof onePool>['run']) => r<{ threadId: number; counted: number }>('countReport', null);
const kind = (p: Promise<unknown>) => p.then(() => 'ok', (e: EngineError) => e.kind);

t.test('a busy-looping task is ended at its deadline; the tasks behind it and the next task run on a new thread', async (t) => {
  const { run, pools, name } = onePool(t);
  const first = await report(run);
  const runaway = kind(run('busyLoop', null, 300));
  const behind = Array.from({ length: SLOTS_PER_THREAD - 1 }, (_, i) => run('echo', i));
  t.equal(await runaway, 'timeout');
  t.same(await Promise.all(behind), [0, 1, 2].slice(0, SLOTS_PER_THREAD - 1), 'sent to the looping thread, never started there, run again');
  const next = await report(run);
  t.not(next.threadId, first.threadId, 'the looping thread was ended');
  t.equal(await run('echo', 'next'), 'next');
  t.equal(pools.threads(name), 1, 'replaced, not added to');
});

t.test('a task whose deadline passes while it waits behind another is answered and never runs; the thread is kept', async (t) => {
  const { run } = onePool(t);
  const first = await report(run);
  const slow = run<number>('spin', 400, 30_000);
  const late = kind(run('count', null, 50));
  t.equal(await late, 'timeout', 'answered at its deadline, not when the thread got to it');
  t.ok((await slow) > 0, 'the running task finished');
  const after = await report(run);
  t.equal(after.threadId, first.threadId, 'same thread: nothing was running past its deadline');
  t.equal(after.counted, 0, 'the taken-back task never ran');
});

t.test('a cancelled request: a waiting task never runs, a running one is answered at once and its thread kept', async (t) => {
  const { run } = onePool(t);
  const first = await report(run);
  const ac = new AbortController();
  const gate = new SharedArrayBuffer(8);
  const cell = new Int32Array(gate);
  const running = kind(run('hold', gate, 30_000, ac.signal));
  const waiting = kind(run('count', null, 30_000, ac.signal));
  // poll (with a deadline) until the held task has started: the case here is a task already running
  for (const until = Date.now() + 30_000; Atomics.load(cell, 1) === 0 && Date.now() < until; ) await new Promise((r) => setImmediate(r));
  t.equal(Atomics.load(cell, 1), 1, 'the held task started');
  ac.abort();
  t.same(await Promise.all([running, waiting]), ['cancelled', 'cancelled']);
  Atomics.store(cell, 0, 1);
  Atomics.notify(cell, 0);
  const after = await report(run);
  t.equal(after.threadId, first.threadId, 'a dropped request does not cost a warm thread');
  t.equal(after.counted, 0, 'the waiting task never ran');
});

t.test('a thread that exits under a task fails that task only; the tasks behind it run on the next thread', async (t) => {
  const { run } = onePool(t);
  await report(run);
  const dying = kind(run('die', null));
  const behind = Array.from({ length: SLOTS_PER_THREAD - 1 }, (_, i) => run('echo', i));
  t.equal(await dying, 'crashed');
  t.same(await Promise.all(behind), [0, 1, 2].slice(0, SLOTS_PER_THREAD - 1));
});

t.test('a failing task is failed without its message; closing answers every task held', async (t) => {
  const { pools, run } = onePool(t);
  const err = await run('boom', null).catch((e: EngineError) => e);
  t.equal((err as EngineError).kind, 'failed');
  t.notMatch((err as EngineError).message, /secret/);
  const held = [kind(run('spin', 2000)), kind(run('echo', 1))];
  await pools.close();
  t.same(await Promise.all(held), ['unavailable', 'unavailable']);
  t.equal(await kind(run('echo', 3)), 'unavailable');
});

t.test('under load a thread holds several tasks at once, and every answer reaches its own caller', async (t) => {
  const { run, pools, name } = onePool(t, 2);
  const n = 400;
  const got = await Promise.all(Array.from({ length: n }, (_, i) => run<{ i: number }>('echo', { i })));
  t.same(got.map((g) => g.i), Array.from({ length: n }, (_, i) => i));
  t.ok(pools.threads(name) <= 2);
});
