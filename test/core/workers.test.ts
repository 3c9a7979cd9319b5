import t, { type Test } from 'tap';
import { startServer } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';

const s = await startServer({ plugins: [probePlugin()] });
t.teardown(() => s.close());

t.test('a task runs in a worker and returns its value', async (t) => {
  const r = await s.request('POST', '/probe/task/echo', { body: { a: [1, 2] } });
  t.equal(r.status, 200);
  t.same(r.body.result, { a: [1, 2] });
});

t.test('a task past its deadline is a clean 503, and the pool keeps working', async (t) => {
  const r = await s.request('POST', '/probe/task/spin', { body: 5000 });
  t.equal(r.status, 503);
  t.equal(r.body.constraint_id, 'engine.timeout');
  const again = await s.request('POST', '/probe/task/echo', { body: 'still alive' });
  t.equal(again.status, 200);
  t.equal(again.body.result, 'still alive');
});

t.test('a task that throws is a 503 that does not leak the error text', async (t) => {
  const r = await s.request('POST', '/probe/task/boom', { body: null });
  t.equal(r.status, 503);
  t.notMatch(r.text, /secret internal detail/);
});

t.test('a worker that exits is a clean failure, and the next task still runs', async (t) => {
  const r = await s.request('POST', '/probe/task/die', { body: null });
  t.equal(r.status, 503);
  t.match(r.body.constraint_id, /^engine\./);
  const again = await s.request('POST', '/probe/task/echo', { body: 1 });
  t.equal(again.body.result, 1);
});

t.test('an unknown engine function fails cleanly', async (t) => {
  const r = await s.request('POST', '/probe/task/nope', { body: null });
  t.equal(r.status, 503);
});

t.test('worker threads get a small young generation by default, and workers.young_generation_mb sets it', async (t) => {
  const r = await s.request('POST', '/probe/task/limits', { body: null });
  t.equal(r.status, 200);
  t.equal(r.body.result.maxYoungGenerationSizeMb, 8);
  const sized = await startServer({ plugins: [probePlugin()], config: { workers: { young_generation_mb: 16 } } });
  t.teardown(() => sized.close());
  const r2 = await sized.request('POST', '/probe/task/limits', { body: null });
  t.equal(r2.body.result.maxYoungGenerationSizeMb, 16);
});

t.test("the old generation is V8's own unless workers.old_generation_mb caps it", async (t) => {
  const r = await s.request('POST', '/probe/task/limits', { body: null });
  const ownOld = r.body.result.maxOldGenerationSizeMb as number;
  t.ok(ownOld > 128, `V8's own sizing by default (${ownOld} MB)`);
  const capped = await startServer({ plugins: [probePlugin()], config: { workers: { old_generation_mb: 96 } } });
  t.teardown(() => capped.close());
  const r2 = await capped.request('POST', '/probe/task/limits', { body: null });
  t.equal(r2.body.result.maxOldGenerationSizeMb, 96);
  // below what an engine's warm-up needs is refused with the setting's name, not a crash later
  await t.rejects(startServer({ plugins: [probePlugin()], config: { workers: { old_generation_mb: 8 } } }), /old_generation_mb/);
});

t.test('a thread a burst added exits after workers.idle_timeout_ms; the pool keeps its first', async (t) => {
  const { WorkerPools } = await import('../../core/workers/pools.js');
  const { pino } = await import('pino');
  const pools = new WorkerPools(2, pino({ level: 'silent' }), 8, 50);
  t.teardown(() => pools.close());
  const module = new URL('../fixtures/test-engine.js', import.meta.url);
  pools.prepare('burst');
  t.equal(pools.threads('burst'), 1, 'one thread before any task');
  const task = () => pools.run({ pool: 'burst', module, fn: 'spin', input: 300, timeoutMs: 60_000 });
  let most = 0;
  let done = false;
  const both = Promise.all([task(), task()]).finally(() => (done = true));
  while (!done) {
    most = Math.max(most, pools.threads('burst'));
    await new Promise((r) => setTimeout(r, 5));
  }
  await both;
  t.equal(most, 2, 'two tasks at once: a second thread');
  while (pools.threads('burst') > 1) await new Promise((r) => setTimeout(r, 20));
  t.equal(pools.threads('burst'), 1, 'the idle one went, the first stays');
});

/** a two-thread pool whose threads started from now on run `warmFn` first; two 300 ms tasks at once */
async function burstAfterWarmup(t: Test, warmFn: string) {
  const { WorkerPools } = await import('../../core/workers/pools.js');
  const { pino } = await import('pino');
  const pools = new WorkerPools(2, pino({ level: 'silent' }), 8, 60_000);
  t.teardown(() => pools.close());
  const module = new URL('../fixtures/test-engine.js', import.meta.url);
  pools.prepare(warmFn);
  // the first thread is already starting: only threads started from here on run the declared warm-up
  pools.warmEveryThread(warmFn, module, warmFn);
  const task = () => pools.run<{ threadId: number; warmed: boolean }>({ pool: warmFn, module, fn: 'spinReport', input: 300, timeoutMs: 60_000 });
  return Promise.all([task(), task()]);
}

t.test('a thread a pool starts after a warm-up was declared runs it before its first task', async (t) => {
  const runs = await burstAfterWarmup(t, 'markWarm');
  const threads = new Map(runs.map((r) => [r.threadId, r.warmed]));
  t.equal(threads.size, 2, 'two tasks at once ran on two threads');
  t.same([...threads.values()].sort(), [false, true], 'the burst thread ran the warm-up before its task; the first thread did not');
});

t.test('a warm-up that fails on a new thread does not keep the thread from taking tasks', async (t) => {
  const runs = await burstAfterWarmup(t, 'failWarm');
  t.equal(new Set(runs.map((r) => r.threadId)).size, 2, 'both threads served a task');
});
