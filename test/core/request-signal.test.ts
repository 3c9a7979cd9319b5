import t from 'tap';
import { EventEmitter, once } from 'node:events';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import type { Plugin, RequestContext } from '../../core/types.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * ctx.signal is built on first read (core/http/context.ts): a handler that reads it early, one that reads
 * it after the client left, and one caught by a shutdown must all see it aborted, with the reason
 * saying why; a request that completes must never see it aborted.
 */
const events = new EventEmitter();
const seen: Array<{ route: string; aborted: boolean; reason: string | null }> = [];

function record(route: string, ctx: RequestContext): void {
  const s = ctx.signal;
  seen.push({ route, aborted: s.aborted, reason: s.aborted ? (s.reason as Error).message : null });
}

function signalPlugin(): Plugin {
  return {
    name: 'signal-probe',
    register(app) {
      // reads the signal at once, then waits for it to abort
      app.route({
        method: 'GET',
        path: '/signal/early',
        auth: 'none',
        handler: async (ctx) => {
          const s = ctx.signal;
          events.emit('early-started');
          if (!s.aborted) await once(s, 'abort');
          record('early', ctx);
          return { body: { ok: true } };
        },
      });
      // reads the signal only once the test says the client is gone
      app.route({
        method: 'GET',
        path: '/signal/late',
        auth: 'none',
        handler: async (ctx) => {
          const go = once(events, 'late-go');
          events.emit('late-started');
          await go;
          record('late', ctx);
          return { body: { ok: true } };
        },
      });
      app.route({
        method: 'GET',
        path: '/signal/done',
        auth: 'none',
        handler: (ctx) => {
          record('done', ctx);
          return { body: { ok: true } };
        },
      });
    },
  };
}

/** Sends a GET and destroys the socket as soon as `started` fires (the handler is running). */
async function abandon(url: string, path: string, started: Promise<unknown>): Promise<void> {
  const req = request(url + path);
  req.on('error', () => undefined);
  req.end();
  await started;
  req.destroy();
}

t.test('a signal read before the client leaves is aborted when it does', async (t) => {
  const s = await startServer({ plugins: [signalPlugin()] });
  t.teardown(() => s.close());
  seen.length = 0;
  await abandon(s.url, '/signal/early', once(events, 'early-started'));
  const r = await waitFor(() => seen.find((e) => e.route === 'early'), { what: 'the handler to see the abort' });
  t.same(r, { route: 'early', aborted: true, reason: 'client closed the connection' });
});

t.test('a signal first read after the client left is born aborted', async (t) => {
  const s = await startServer({ plugins: [signalPlugin()] });
  t.teardown(() => s.close());
  seen.length = 0;
  const [sock] = (await Promise.all([once(s.kernel.server, 'connection'), abandon(s.url, '/signal/late', once(events, 'late-started'))]))[0] as [Socket];
  // every 'close' listener of the server's socket (the response's among them) has run when this resolves
  await once(sock, 'close');
  events.emit('late-go');
  const r = await waitFor(() => seen.find((e) => e.route === 'late'), { what: 'the handler to read the signal' });
  t.same(r, { route: 'late', aborted: true, reason: 'client closed the connection' });
});

t.test('a completed request never sees its signal aborted', async (t) => {
  const s = await startServer({ plugins: [signalPlugin()] });
  t.teardown(() => s.close());
  seen.length = 0;
  const r = await s.request('GET', '/signal/done');
  t.equal(r.status, 200);
  t.same(seen, [{ route: 'done', aborted: false, reason: null }]);
});

t.test('shutdown aborts the signal of a request still running, and a late reader sees it too', async (t) => {
  const s = await startServer({ plugins: [signalPlugin()], config: { server: { shutdown_grace_ms: 200 } } });
  seen.length = 0;
  const early = s.request('GET', '/signal/early').catch(() => null);
  await once(events, 'early-started');
  const late = s.request('GET', '/signal/late').catch(() => null);
  await once(events, 'late-started');
  await s.close();
  events.emit('late-go');
  await Promise.all([early, late]);
  const byRoute = Object.fromEntries(seen.map((e) => [e.route, e]));
  t.same(byRoute.early, { route: 'early', aborted: true, reason: 'server shutting down' });
  t.same(byRoute.late, { route: 'late', aborted: true, reason: 'server shutting down' });
});
