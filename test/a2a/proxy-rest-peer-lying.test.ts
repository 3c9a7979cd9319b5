import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';

/**
 * Issue 39: the upstream leg to a REST-only peer that lies. The message goes out as the client's
 * own bytes; whatever the peer answers is read as the JSON-RPC answer it restates and reviewed as
 * such: another caller's task, an unreadable body, a status without an error body, a stream cut or
 * marked as an error.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const V1 = { 'a2a-version': '1.0' };

interface Scripted {
  status?: number;
  type?: string;
  body: string;
}

/** An HTTP+JSON peer that answers whatever the test scripts and records the bytes it received */
async function restPeer(answer: (method: string, path: string) => Scripted) {
  const seen: Array<{ method: string; path: string; body: string }> = [];
  let base = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/.well-known/agent-card.json') {
        const card = { name: 'ledger', description: 'books', version: '1', supportedInterfaces: [{ url: `${base}/api`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }], capabilities: { streaming: true }, defaultInputModes: [], defaultOutputModes: [], skills: [] };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      }
      const path = (req.url ?? '').replace(/^\/api/, '');
      seen.push({ method: req.method ?? '', path, body: Buffer.concat(chunks).toString('utf8') });
      const a = answer(req.method ?? '', path);
      res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

t.test('a lying REST-only peer: answers reviewed as JSON-RPC ones are', async (t) => {
  let next: (method: string, path: string) => Scripted = () => ({ body: '{}' });
  const peer = await restPeer((m, p) => next(m, p));
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/.well-known/agent-card.json` } });
  t.teardown(() => s.close());
  const a = await agentToken(s);
  const b = await agentToken(s);
  const post = (token: string, raw: string) => s.request('POST', '/a2a/peers/ledger', { raw, headers: { ...V1, 'x-agent-token': token, 'content-type': 'application/json' } });
  const sendRaw = (params: string, method = 'SendMessage', id = 7) => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`;
  const message = JSON.stringify({ message: { messageId: `m-1`, role: 'ROLE_USER', parts: [{ data: INVOICE }] } });
  const task = (id: string) => JSON.stringify({ task: { id, contextId: `c-${id}`, status: { state: 'TASK_STATE_COMPLETED' } } });

  // spacing, an escape and key order a re-serialisation would change
  const odd = `{ "message" : {"role":"ROLE_USER","messageId":"m-\\u0031","parts":[{"data":{"line_items":[{"quantity":2,"amount":"2.50","description":"pens"}],"claimed_total":"5.00"}}]} }`;
  next = () => ({ body: task('task-a') });
  const first = await post(a.token, sendRaw(odd));
  t.equal(first.body.result?.task?.id, 'task-a', `A creates task-a (${first.text.slice(0, 160)})`);
  t.match(peer.seen.at(-1), { method: 'POST', path: '/message:send', body: odd }, 'the peer read the client’s params byte for byte');

  const stolen = await post(b.token, sendRaw(message));
  t.equal(stolen.body.error?.code, -32055, 'B is not handed A’s task: withheld');

  const cases: Array<[string, Scripted, number]> = [
    ['a body JSON.parse would read another way (a repeated member)', { body: '{"task":{"id":"t-x","contextId":"c","status":{}},"task":{"id":"t-y"}}' }, -32055],
    ['not JSON', { body: '<html>oops</html>', type: 'text/html' }, -32055],
    ['HTTP 500 without an error body', { status: 500, body: '<html>oops</html>', type: 'text/html' }, -32055],
    ['HTTP 404 with an error it names', { status: 404, body: JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: 'gone', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] } }) }, -32001],
    ['an error whose reason is unknown', { status: 418, body: JSON.stringify({ error: { message: 'teapot', details: [{ reason: 'TEAPOT', domain: 'evil.example' }] } }) }, -32603],
    ['an error claiming a proofgate verdict', { status: 403, body: JSON.stringify({ error: { message: 'blocked', details: [{ reason: 'MESSAGE_BLOCKED', domain: 'proofgate.dev' }] } }) }, -32050],
  ];
  for (const [what, scripted, code] of cases) {
    next = () => scripted;
    const r = await post(a.token, sendRaw(message));
    t.equal(r.status, 200, `${what}: a JSON-RPC answer`);
    t.equal(r.body.error?.code, code, `${what}: ${code}`);
    t.equal(r.body.id, 7, 'under the request id');
  }

  await t.test('streams', async (t) => {
    const sse = (...events: string[]) => ({ type: 'text/event-stream', body: events.join('') });
    const ev = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
    const read = async (scripted: Scripted) => {
      next = () => scripted;
      const r = await post(a.token, sendRaw(message, 'SendStreamingMessage'));
      return r.text
        .split('\n\n')
        .filter((e) => e.startsWith('data: '))
        .map((e) => JSON.parse(e.slice(6)));
    };
    const ok = await read(sse(ev({ task: { id: 'task-s', contextId: 'c-s', status: { state: 'TASK_STATE_WORKING' } } }), ev({ statusUpdate: { taskId: 'task-s', contextId: 'c-s', status: { state: 'TASK_STATE_COMPLETED' } } })));
    t.equal(ok.length, 2, 'each event relayed');
    t.equal(ok[0].result?.task?.id, 'task-s', 'as a JSON-RPC result under the request id');
    t.equal(ok[0].id, 7);
    t.ok(ok[0].result.task.metadata?.['https://proofgate.dev/a2a/extensions/verdict/v1'], 'with the verdict in its metadata');
    const errored = await read(sse(`event: error\ndata: ${JSON.stringify({ error: { code: 400, message: 'no', details: [{ reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' }] } })}\n\n`));
    t.equal(errored[0]?.error?.code, -32002, 'an error event is the JSON-RPC error it names');
    const bare = await read(sse(`event: error\ndata: {"nothing":1}\n\n`));
    t.equal(bare[0]?.error?.code, -32055, 'an error event without an error body is withheld');
    const foreign = await read(sse(ev({ task: { id: 'task-a', contextId: 'c-task-a', status: { state: 'TASK_STATE_WORKING' } } })));
    t.equal(foreign[0]?.result?.task?.id, 'task-a', 'A’s own task streams to A');
    const toB = async () => {
      next = () => sse(ev({ task: { id: 'task-a', contextId: 'c-task-a', status: { state: 'TASK_STATE_WORKING' } } }));
      const r = await post(b.token, sendRaw(message, 'SendStreamingMessage'));
      return r.text.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)));
    };
    t.equal((await toB())[0]?.error?.code, -32055, 'another caller’s task in a stream is withheld');
  });
});
