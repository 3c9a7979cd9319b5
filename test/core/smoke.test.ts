import t from 'tap';
import health from '../../plugins/health/index.js';
import { startServer } from '../helpers/server.js';

t.test('health answers on bare and /v1 paths', async (t) => {
  const s = await startServer({ plugins: [health] });
  t.teardown(() => s.close());
  for (const p of ['/health', '/v1/health']) {
    const r = await s.request('GET', p);
    t.equal(r.status, 200);
    t.equal(r.body.status, 'ok');
    t.equal(r.body.service, 'proofgate');
    t.match(r.body.timestamp, /^\d{4}-\d\d-\d\dT/);
  }
});
