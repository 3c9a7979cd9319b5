import t from 'tap';
import { startServer } from '../helpers/server.js';
import { once } from 'node:events';
import { probeEvents, probePlugin } from '../helpers/probe-plugin.js';
import { waitFor } from '../helpers/wait.js';

t.test('close() lets an in-flight request finish, then refuses new connections', async (t) => {
  const s = await startServer({ plugins: [probePlugin()] });
  const started = once(probeEvents, 'slow-started');
  const inFlight = s.request('GET', '/probe/slow');
  await started; // the request is in the handler, so it is in flight whatever the machine's load
  const closing = s.close();
  // the handler is let go only once the server refuses new connections: close() is under way and must wait for it
  await waitFor(() => fetch(s.url + '/health').then(() => false, () => true), { what: 'the server to stop accepting' });
  probeEvents.emit('slow-release');
  const r = await inFlight;
  t.equal(r.status, 200, 'the request that was running completes');
  t.same(r.body, { finished: true });
  await closing;
  await t.rejects(fetch(s.url + '/health'), 'no new connections after close');
  t.notOk(s.kernel.isReady(), 'not ready once closing');
});

t.test('the store is closed after shutdown', async (t) => {
  const s = await startServer({ plugins: [probePlugin()] });
  t.ok(s.kernel.app.store.ready);
  await s.close();
  t.notOk(s.kernel.app.store.ready);
});
