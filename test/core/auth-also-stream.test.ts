import { Readable } from 'node:stream';
import t from 'tap';
import { HttpError, Problems } from '../../core/errors.js';
import type { Plugin } from '../../core/types.js';
import { startServer } from '../helpers/server.js';

/**
 * Kernel pieces added for the A2A proxy: a route accepting a second credential kind (`authAlso`,
 * chosen by the credential present), and a Readable reply body written chunk by chunk.
 */
const plugin: Plugin = {
  name: 'probe',
  register(app) {
    const auth = (kind: 'apiKey' | 'agentToken', header: string) =>
      app.authenticator(
        kind,
        async (ctx) => {
          if (ctx.headers[header] !== 'good') throw new HttpError(Problems.unauthorized, `bad ${header}`);
          return { kind, orgId: 'o', scopes: ['verify:read'] };
        },
        (ctx) => ctx.headers[header] !== undefined,
      );
    auth('apiKey', 'x-api-key');
    auth('agentToken', 'x-agent-token');
    app.route({ method: 'GET', path: '/probe/who', auth: 'apiKey', authAlso: ['agentToken'], scope: 'verify:read', handler: (ctx) => ({ body: { kind: ctx.principal!.kind } }) });
    app.route({
      method: 'GET',
      path: '/probe/stream',
      auth: 'none',
      handler: (ctx) => {
        let n = 0;
        const gate = ctx.query.gate === '1';
        const body = new Readable({
          read() {
            n++;
            if (n > 3) return this.push(null);
            // with ?gate=1 the next chunk only comes after the client asked for it (proves no buffering)
            const next = `chunk ${n}\n`;
            if (!gate || n === 1) this.push(next);
            else if (credits > 0) {
              credits--;
              this.push(next);
            } else pending.push(() => this.push(next));
          },
        });
        return { headers: { 'content-type': 'text/plain' }, body };
      },
    });
  },
};
const pending: Array<() => void> = [];
let credits = 0;
function release(): void {
  const p = pending.shift();
  if (p) p();
  else credits++;
}

t.test('authAlso picks the kind whose credential is present', async (t) => {
  const s = await startServer({ plugins: [plugin] });
  t.teardown(() => s.close());
  t.same((await s.request('GET', '/probe/who', { headers: { 'x-api-key': 'good' } })).body, { kind: 'apiKey' });
  t.same((await s.request('GET', '/probe/who', { headers: { 'x-agent-token': 'good' } })).body, { kind: 'agentToken' });
  t.equal((await s.request('GET', '/probe/who', { headers: { 'x-agent-token': 'bad' } })).status, 401, 'a bad second-kind credential is refused');
  const none = await s.request('GET', '/probe/who');
  t.equal(none.status, 401);
  t.match(none.body.detail, /x-api-key/, 'with no credential the primary kind answers');
});

t.test('a Readable reply is streamed as it is produced', async (t) => {
  const s = await startServer({ plugins: [plugin] });
  t.teardown(() => s.close());
  const plain = await s.request('GET', '/probe/stream');
  t.equal(plain.text, 'chunk 1\nchunk 2\nchunk 3\n');
  t.equal(plain.headers.get('content-length'), null, 'no length: chunked');
  const res = await fetch(`${s.url}/probe/stream?gate=1`);
  const reader = res.body!.getReader();
  const seen: string[] = [];
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
    seen.push(text);
    // release the next chunk only once this one arrived
    release();
  }
  t.equal(text, 'chunk 1\nchunk 2\nchunk 3\n');
  t.ok(seen.length >= 3, 'the chunks arrived one by one');
});
