import t from 'tap';
import { startServer } from '../helpers/server.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { Plugin } from '../../core/types.js';

/**
 * A refusal whose headers cannot be written (a plugin bug: CR/LF in a value) still gets an answer.
 * Before, writing the problem threw inside the pipeline's catch: the client waited forever, the
 * request stayed in flight (close() then waited its whole grace period) and the promise rejected
 * unhandled.
 */
const faulty: Plugin = {
  name: 'faulty',
  register(app) {
    app.route({
      method: 'GET',
      path: '/t/error-header',
      auth: 'none',
      handler() {
        throw new HttpError(Problems.validation, 'refused', { headers: { 'x-why': 'a\r\nb' } });
      },
    });
    app.route({
      method: 'GET',
      path: '/t/context-header',
      auth: 'none',
      handler(ctx) {
        ctx.responseHeaders['x-trace'] = 'a\nb';
        throw new Error('secret internal text');
      },
    });
    app.route({ method: 'GET', path: '/t/ok', auth: 'none', handler: () => ({ body: { ok: true } }) });
  },
};

const unhandled: unknown[] = [];
const onUnhandled = (err: unknown) => unhandled.push(err);
process.on('unhandledRejection', onUnhandled);
t.teardown(() => {
  process.off('unhandledRejection', onUnhandled);
});

// a long grace: were a request left in flight, close() would wait it out and the test would time out
const s = await startServer({ plugins: [faulty], config: { server: { shutdown_grace_ms: 600_000 } } });
t.teardown(() => s.close());

t.test('a problem whose headers cannot be written is answered as a bare 500 problem', async (t) => {
  for (const path of ['/t/error-header', '/t/context-header']) {
    // a bound on a failure (no answer at all), generous for a loaded machine
    const r = await fetch(s.url + path, { headers: { 'x-request-id': 'req-unwritable-1' }, signal: AbortSignal.timeout(30_000) });
    const text = await r.text();
    t.equal(r.status, 500, path);
    t.match(r.headers.get('content-type'), /^application\/problem\+json/);
    t.equal(JSON.parse(text).code, 'internal_error');
    t.equal(r.headers.get('x-request-id'), 'req-unwritable-1', 'the request id is kept');
    t.notOk(r.headers.get('x-why') ?? r.headers.get('x-trace'), 'the broken header is dropped');
    t.notMatch(text, /secret internal text|Invalid character/);
  }
  t.same(unhandled, [], 'no unhandled rejection');
  t.equal((await s.request('GET', '/t/ok')).status, 200, 'the server still serves');
});

t.test('nothing is left in flight: close() does not wait out the grace period', async (t) => {
  const started = Date.now();
  await s.close();
  t.ok(Date.now() - started < 60_000, 'closed without waiting for the 600 s grace');
});
