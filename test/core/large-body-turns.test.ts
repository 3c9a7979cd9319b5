import t from 'tap';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../helpers/server.js';
import type { Plugin } from '../../core/types.js';

/**
 * A body over 256 KB is walked by its handler (a proof hash) and again by the reply hooks (the
 * audit's request hash). The kernel gives the event loop a turn between the two, so they never
 * hold it as one block; a small body goes straight through, without the turn's cost.
 */
function probe(seen: boolean[]): Plugin {
  let ranBetween = false;
  return {
    name: 'turn-probe',
    register(app) {
      app.route({
        method: 'POST',
        path: '/t/echo-size',
        auth: 'apiKey',
        scope: 'verify:read',
        bodyLimit: 2 * 1024 * 1024,
        handler(ctx) {
          ranBetween = false;
          // runs only if the loop gets a turn before the reply hooks
          setImmediate(() => (ranBetween = true));
          return { body: { bytes: ctx.rawBody?.length ?? 0 } };
        },
      });
      app.phase('reply', (ctx, o) => {
        if (ctx.routePath === '/t/echo-size' && o.kind === 'reply') seen.push(ranBetween);
      });
    },
  };
}

t.test('a turn of the event loop between the handler and the reply hooks, for a large body only', async (t) => {
  const seen: boolean[] = [];
  const s = await startServer({ plugins: [testAuthPlugin(), probe(seen)] });
  t.teardown(() => s.close());
  const send = (chars: number) => s.request('POST', '/t/echo-size', { apiKey: TEST_API_KEY, body: { text: 'x'.repeat(chars) } });

  const large = await send(300 * 1024);
  t.equal(large.status, 200, large.text);
  t.ok(large.body.bytes > 256 * 1024);
  const small = await send(1024);
  t.equal(small.status, 200, small.text);
  t.same(seen, [true, false], 'the large body got a turn before the reply hooks; the small one did not');
});
