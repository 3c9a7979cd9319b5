import t, { type Test } from 'tap';
import { pino } from 'pino';
import { EngineError, WorkerPools, SLOTS_PER_THREAD } from '../../core/workers/pools.js';

// Several tasks are in flight per thread (core/workers/pool.ts); these pin what that must not change:
// a deadline ends only a thread whose task is running, tasks queued behind it run elsewhere, and a
// task taken back before it started never runs.
const module = new URL('../fixtures/test-engine.js', import.meta.url);

function onePool(t: Test, threads = 1) {
  const pools = new WorkerPools(threads, pino({ level: 'silent' }), 8, 60_000);
  t.teardown(() => pools.close());
  const name = `p${Math.random()}`;
  pools.prepare(name);
  const run = <O>(fn: string, input: unknown, timeoutMs = 30_000, signal?: AbortSignal) => pools.run<O>({ pool: name, module, fn, input, timeoutMs, signal });
  return { pools, run, name };
}

const report = (r: ReturnType<typeof onePool>['run']) => r<{ threadId: number; counted: number; countedAt: Array<{ at: number; input: unknown }> }>('countReport', null);
// in Node since 16; typed from lib ES2024, above this project's ES2023
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, ms: number): { async: boolean; value: Promise<string> | string } }).waitAsync;
const kind = (p: Promise<unknown>) => p.then(() => 'ok', (e: EngineError) => e.kind);

t.test('a task past its deadline while running ends its thread; the tasks queued behind it on that thread run on the next', async (t) => {
  const { run } = onePool(t);
  const first = await report(run);
  const runaway = kind(run('spin', 60_000, 300));
  const behind = Array.from({ length: SLOTS_PER_THREAD - 1 }, () => report(run));
  t.equal(await runaway, 'timeout');
  const after = await Promise.all(behind);
  for (const r of after) t.not(r.threadId, first.threadId, 'ran on the replacement thread');
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
  // the running task holds its thread until the gate opens, after the abort: however late this
  // thread gets to the abort, the waiting task has not started
  const gate = new SharedArrayBuffer(8);
  const cell = new Int32Array(gate);
  const running = kind(run('hold', gate, 30_000, ac.signal));
  const waiting = kind(run('count', 'the waiting task', 30_000, ac.signal));
  // queued behind the held task on the same thread: it can only finish after that task has
  const order: string[] = [];
  const behind = run('echo', 'behind').then(() => order.push('behind'));
  void running.then(() => order.push('cancelled'));
  // the abort takes back its tasks one after another: aborted before the thread had started the
  // held task, the thread could skip it and start the waiting one between the two, which then
  // rightly runs (it started before it was taken back). The case here is a task already running.
  const started = waitAsync(cell, 1, 0, 30_000);
  // 'not-equal': it had started before the wait began; 'ok': it started while waited for
  const outcome = started.async ? await started.value : started.value;
  t.ok(outcome === 'ok' || outcome === 'not-equal', `the held task started (${outcome})`);
  const abortedAt = Date.now();
  ac.abort();
  t.same(await Promise.all([running, waiting]), ['cancelled', 'cancelled']);
  Atomics.store(cell, 0, 1);
  Atomics.notify(cell, 0);
  await behind;
  t.same(order, ['cancelled', 'behind'], 'answered before the running task ended');
  const after = await report(run);
  t.equal(after.threadId, first.threadId, 'a dropped request does not cost a warm thread');
  t.equal(after.counted, 0, `the waiting task never ran (aborted at ${abortedAt}; counted: ${JSON.stringify(after.countedAt)})`);
  t.equal(await kind(run('echo', 1, 30_000, ac.signal)), 'cancelled', 'a task of a request already cancelled is not sent');
});

t.test('a thread that exits under a task fails that task only; the tasks behind it run on the next thread', async (t) => {
  const { run } = onePool(t);
  await report(run);
  const dying = kind(run('die', null));
  const behind = Array.from({ length: SLOTS_PER_THREAD - 1 }, (_, i) => run('echo', i));
  t.equal(await dying, 'crashed');
  t.same(await Promise.all(behind), [0, 1, 2].slice(0, SLOTS_PER_THREAD - 1));
});

t.test('the queue is bounded: past it a task is refused at once as unavailable', async (t) => {
  const { run } = onePool(t);
  // the thread is still starting: every task waits in the pool's queue (256 per thread)
  const queued = Array.from({ length: 256 }, (_, i) => run<number>('echo', i));
  t.equal(await kind(run('echo', -1)), 'unavailable');
  t.same(await Promise.all(queued), Array.from({ length: 256 }, (_, i) => i), 'the queued ones all ran, in order');
});

t.test('an input or result structured clone cannot carry is a failed task, and the thread keeps working', async (t) => {
  const { run } = onePool(t);
  t.equal(await kind(run('echo', { f: () => 1 })), 'failed');
  t.equal(await kind(run('unsendable', null)), 'failed');
  t.equal(await run('echo', 'fine'), 'fine');
});

t.test('closing a pool answers every task it holds', async (t) => {
  const { pools, run } = onePool(t);
  const held = [kind(run('spin', 2000)), kind(run('echo', 1)), kind(run('echo', 2))];
  await pools.close();
  t.same(await Promise.all(held), ['unavailable', 'unavailable', 'unavailable']);
  t.equal(await kind(run('echo', 3)), 'unavailable');
});

t.test('under load a thread holds several tasks at once, and every answer reaches its own caller', async (t) => {
  const { run, pools, name } = onePool(t, 2);
  const n = 400;
  const got = await Promise.all(Array.from({ length: n }, (_, i) => run<{ i: number }>('echo', { i })));
  t.same(got.map((g) => g.i), Array.from({ length: n }, (_, i) => i));
  t.ok(pools.threads(name) <= 2);
});

t.test('a thread that dies before it is ready is restarted at most once a second, and a task waiting meanwhile ends at its deadline', async (t) => {
  let exits = 0;
  const log = pino({ level: 'error' }, { write: (line: string) => void (exits += Number(line.includes('engine worker exited'))) });
  const pools = new WorkerPools(1, log, 8, 60_000);
  t.teardown(() => pools.close());
  pools.prepare('broken');
  const run = (fn: string, timeoutMs: number) => pools.run({ pool: 'broken', module, fn, input: null, timeoutMs });
  await run('echo', 30_000);
  // every thread started from now on dies in its warm-up: the next one is the replacement of the one `die` takes down
  pools.warmEveryThread('broken', module, 'dieWarm');
  t.equal(await kind(run('die', 30_000)), 'crashed');
  const started = Date.now();
  t.equal(await kind(run('echo', 400)), 'timeout', 'no thread ever becomes ready: the task fails closed at its deadline');
  t.ok(Date.now() - started >= 350, 'not before');
  t.ok(pools.threads('broken') <= 1, 'one thread (re)starting at a time, not a pile of them');
  const before = exits;
  await new Promise((r) => setTimeout(r, 1500));
  t.ok(exits - before <= 2, `at most one restart a second (${exits - before} exits in 1.5 s)`);
  await pools.close();
  t.equal(await kind(run('echo', 400)), 'unavailable');
});

t.test('a thread that goes idle takes over a task waiting behind a slow one on another thread', async (t) => {
  const { run } = onePool(t, 2);
  await report(run);
  const order: string[] = [];
  const slow = run<{ threadId: number }>('spinReport', 2000).then((r) => (order.push('slow'), r));
  // the pool grows for this one; until the new thread is ready it is sent ahead to the busy thread
  const stacked = run<{ threadId: number }>('spinReport', 10).then((r) => (order.push('stacked'), r));
  const other = run('echo', 'other');
  const [s, st] = await Promise.all([slow, stacked, other]);
  t.same(order, ['stacked', 'slow'], 'it did not wait out the slow task');
  t.not(st.threadId, s.threadId, 'it ran on the thread that went idle');
  t.equal((await report(run)).counted, 0);
});


t.test("a preload in NODE_OPTIONS (a test runner's, an APM agent's) runs in the main thread only, not in every engine thread", async (t) => {
  const saved = { options: process.env.NODE_OPTIONS, mark: process.env.PROBE_ENV_MARK };
  // Node re-reads NODE_OPTIONS for every new thread, whatever execArgv says (tap's coverage loader
  // doubled the suite's engine-thread CPU this way)
  process.env.NODE_OPTIONS = `--import=${new URL('../fixtures/preload-marker.js', import.meta.url).href}`;
  process.env.PROBE_ENV_MARK = 'seen';
  t.teardown(() => {
    for (const [k, v] of [['NODE_OPTIONS', saved.options], ['PROBE_ENV_MARK', saved.mark]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  const { run } = onePool(t);
  const seen = await run<{ preloaded: boolean; nodeOptions?: string; mark?: string }>('environment', null);
  t.equal(seen.preloaded, false, 'the preload did not run in the engine thread');
  t.equal(seen.nodeOptions, undefined, 'nor does the thread see NODE_OPTIONS');
  t.equal(seen.mark, 'seen', 'the rest of the environment is there');
});
