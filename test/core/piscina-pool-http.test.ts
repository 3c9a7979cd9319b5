import t from 'tap';
import { startServer } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';

// BENCH_POOL=piscina wires the piscina variant into the whole service (core/app.ts): through HTTP,
// a busy-looping engine task is a clean 503 at its deadline and the next task is served.
process.env.BENCH_POOL = 'piscina';
const s = await startServer({ plugins: [probePlugin()] });
delete process.env.BENCH_POOL;
t.teardown(() => s.close());

t.test('the service runs its engines on the piscina variant', async (t) => {
  const r = await s.request('POST', '/probe/task/poolKind', { body: null });
  t.equal(r.status, 200);
  t.equal(r.body.result, 'piscina');
});

t.test('a busy-looping task is a 503 at its deadline, and the next task runs', async (t) => {
  const r = await s.request('POST', '/probe/task/busyLoop', { body: null });
  t.equal(r.status, 503);
  t.equal(r.body.constraint_id, 'engine.timeout');
  const again = await s.request('POST', '/probe/task/echo', { body: 'still alive' });
  t.equal(again.status, 200);
  t.equal(again.body.result, 'still alive');
});

t.test('a worker that exits is a clean failure, and the next task still runs', async (t) => {
  const r = await s.request('POST', '/probe/task/die', { body: null });
  t.equal(r.status, 503);
  t.match(r.body.constraint_id, /^engine\./);
  const again = await s.request('POST', '/probe/task/echo', { body: 1 });
  t.equal(again.body.result, 1);
});
