import t from 'tap';
import { PassThrough, Readable } from 'node:stream';
import { request } from 'node:http';
import type { Plugin } from '../../core/types.js';
import { startServer } from '../helpers/server.js';

/** A Reply whose body is a Readable is written as it comes (the MCP proxy relays SSE this way). */
t.test('a streamed reply: chunks as they come, no length, the source torn down when the client leaves', async (t) => {
  let live: PassThrough | null = null;
  let closed!: () => void;
  const sourceClosed = new Promise<void>((r) => (closed = r));
  const plugin: Plugin = {
    name: 'stream-test',
    register(app) {
      app.route({ method: 'GET', path: '/test/stream', auth: 'none', produces: 'text/event-stream', handler: () => ({ headers: { 'content-type': 'text/event-stream' }, body: Readable.from(['a\n', 'b\n', 'c\n']) }) });
      app.route({
        method: 'GET',
        path: '/test/endless',
        auth: 'none',
        produces: 'text/event-stream',
        handler: () => {
          live = new PassThrough();
          live.once('close', closed);
          live.write('first\n');
          return { headers: { 'content-type': 'text/event-stream' }, body: live };
        },
      });
    },
  };
  const s = await startServer({ plugins: [plugin] });
  t.teardown(() => s.close());

  const r = await fetch(`${s.url}/test/stream`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-length'), null, 'no length: the size is not known up front');
  t.equal(r.headers.get('x-content-type-options'), 'nosniff', 'the security headers are still set');
  t.equal(await r.text(), 'a\nb\nc\n');

  // the client reads the first chunk while the source is still open, then goes away
  await new Promise<void>((resolve, reject) => {
    const req = request(`${s.url}/test/endless`, (res) => {
      res.once('data', (chunk: Buffer) => {
        t.equal(chunk.toString(), 'first\n', 'the first chunk arrives before the stream ends');
        req.destroy();
        resolve();
      });
    });
    req.on('error', (e) => (live ? undefined : reject(e)));
    req.end();
  });
  await sourceClosed;
  t.ok(live!.destroyed, 'the source is destroyed once the client has gone');
});
