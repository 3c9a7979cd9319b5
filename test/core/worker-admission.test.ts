import t, { type Test } from 'tap';
import { pino } from 'pino';
import { EngineError, WorkerPools } from '../../core/workers/pools.js';

// Admission (issue 45): a task that would wait for a thread longer than the pool's wait budget, or
// than its own deadline, is refused at once as `unavailable` instead of queued. The pool's mean run
// time is learnt from the tasks' own run times; `spin` holds its thread at least the time it is given
// and `hold` until the test opens its gate, so every case here follows from the order of calls alone.
const module = new URL('../fixtures/test-engine.js', import.meta.url);
const kind = (p: Promise<unknown>) => p.then(() => 'ok', (e: EngineError) => e.kind);

function onePool(t: Test, maxQueueWaitMs: number) {
  const pools = new WorkerPools(1, pino({ level: 'silent' }), 8, 60_000, null, maxQueueWaitMs);
  t.teardown(() => pools.close());
  const name = `a${Math.random()}`;
  pools.prepare(name);
  const run = <O>(fn: string, input: unknown, o: { timeoutMs?: number; warmup?: boolean; queueBudget?: boolean } = {}) =>
    pools.run<O>({ pool: name, module, fn, input, timeoutMs: o.timeoutMs ?? 30_000, warmup: o.warmup, queueBudget: o.queueBudget ?? true });
  const gate = new SharedArrayBuffer(4);
  const open = () => {
    Atomics.store(new Int32Array(gate), 0, 1);
    Atomics.notify(new Int32Array(gate), 0);
  };
  return { run, gate, open };
}

t.test('past the wait budget a task is refused at once and never runs; the pool serves again once it drains', async (t) => {
  const { run, gate, open } = onePool(t, 5);
  // the pool learns a run time of at least 40 ms: two tasks ahead are a wait past the 5 ms budget
  t.ok((await run<number>('spin', 40)) >= 40);
  const held = run<number>('hold', gate);
  // one task behind the running one is admitted whatever the budget: it waits for one query, not a queue
  const second = run('echo', 'second');
  t.equal(await kind(run('count', null)), 'unavailable', 'refused, not queued behind the held task and the one waiting');
  // a warm-up is never refused for the wait: it is what a fresh or restarted thread needs
  const warm = run('echo', 'warm', { warmup: true });
  // nor is a task that does not ask for the budget (a batch item): it waits its turn within its deadline
  const item = run('echo', 'item', { queueBudget: false });
  open();
  t.equal(await held, 1);
  t.equal(await second, 'second', 'the one task behind the running one was served');
  t.equal(await warm, 'warm');
  t.equal(await item, 'item');
  t.equal(await run<number>('count', null), 1, 'with nothing ahead a task is taken, and the refused one never ran');
});

t.test('a task whose deadline is shorter than its expected wait is refused at once, even without the wait budget', async (t) => {
  const { run, gate, open } = onePool(t, 5);
  t.ok((await run<number>('spin', 40)) >= 40);
  const held = run<number>('hold', gate);
  t.equal(await kind(run('echo', 'short', { timeoutMs: 20, queueBudget: false })), 'unavailable', 'it would time out waiting: refused now');
  const patient = run('echo', 'patient', { timeoutMs: 30_000, queueBudget: false });
  open();
  t.equal(await held, 1);
  t.equal(await patient, 'patient', 'a deadline past the wait is queued and served');
});

t.test('the expected wait counts how fast answers really come while the pool is busy, not only the threads own run times', async (t) => {
  const { run, gate, open } = onePool(t, 20);
  // the threads' run times say ~1 ms a task
  for (let i = 0; i < 5; i++) await run('spin', 1);
  const block = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  // a burst read by an event loop that is busy 10 ms after each answer: the answers come ~10 ms apart
  // whatever the thread's own timings say (a sample counts at most 4 run times + 1 ms: ~5 ms)
  await Promise.all(Array.from({ length: 30 }, () => run('spin', 1, { queueBudget: false }).then(() => block(10))));
  // one task running and four waiting: ~5 x 1 ms by the run times (admitted under 20 ms), ~5 x 5 ms by the answers
  const held = run<number>('hold', gate);
  const behind = Array.from({ length: 4 }, () => run('echo', 'behind', { queueBudget: false }));
  const refused = kind(run('count', null));
  open();
  t.equal(await refused, 'unavailable', 'refused: the answers say the wait is past the budget');
  t.equal(await held, 1);
  t.same(await Promise.all(behind), ['behind', 'behind', 'behind', 'behind']);
  // time between bursts is not service time: after an idle pause the next answers are still ~1 ms apart
  await new Promise((r) => setTimeout(r, 300));
  t.equal(await run<number>('count', null), 1, 'with nothing ahead a task is taken, and the refused one never ran');
});
