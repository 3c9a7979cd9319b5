import t, { type Test } from 'tap';
import { gzipSync } from 'node:zlib';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { McpUpstreams } from '../../plugins/mcp/upstream.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { waitFor } from '../helpers/wait.js';
import { bodyAnswer, startHostileUpstream, type AnswerMaker } from '../helpers/hostile-wire.js';

/**
 * The relay's leg to the server (plugins/mcp/upstream.ts, undici pools instead of global fetch):
 * a redirect is relayed, never followed, so the agent's request and the server's credential headers
 * go nowhere else; a compressed answer is not inflated but withheld; calls share a bounded set of
 * keep-alive connections per server; an event stream never waits behind calls.
 */

async function relay(t: Test, answer: (m: any) => AnswerMaker | undefined) {
  const up = await startHostileUpstream((r) => {
    const m = r.json;
    if (m?.method === 'initialize') {
      return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'h', version: '1' } } }));
    }
    return answer(m) ?? bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m?.id, result: {} }));
  });
  t.teardown(() => up.close());
  const s = await startServer({ plugins: [health, auth, agents, a2a, mcp, audit], config: { mcp: { servers: { h: up.url }, timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'leg' });
  const headers = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  return { s, up, post: (body: unknown) => s.request('POST', '/mcp/h', { headers, body }) };
}

t.test('a 3xx answer is relayed as its status, never followed to its Location', async (t) => {
  const elsewhere = await startHostileUpstream(() => bodyAnswer('{}'));
  t.teardown(() => elsewhere.close());
  for (const status of [301, 302, 303, 307, 308]) {
    const { post } = await relay(t, (m) => (m?.method === 'ping' ? (res) => void res.writeHead(status, { location: `${elsewhere.url}steal` }).end() : undefined));
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' });
    t.equal(r.status, status, `${status}: the status reaches the client`);
    t.equal(r.headers.get('location'), null, `${status}: the Location does not`);
  }
  t.equal(elsewhere.received.length, 0, 'nothing reached the redirect target');
});

t.test('a compressed answer is withheld, not inflated; the proxy asks for none', async (t) => {
  const { post, up } = await relay(t, (m) =>
    m?.method === 'ping'
      ? (res) => void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} })))
      : undefined,
  );
  const r = await post({ jsonrpc: '2.0', id: 7, method: 'ping' });
  t.equal(r.status, 200);
  t.match(r.body, { jsonrpc: '2.0', id: 7, error: { code: -32603, message: /^proofgate withheld the answer: / } }, 'a JSON-RPC error under the request id');
  const asked = up.received.find((x) => x.json?.method === 'ping');
  t.ok(asked, 'the ping reached the server');
  t.equal(asked!.headers['accept-encoding'], undefined, 'no compressed answer was asked for');
});

/** a server that holds every answer until `release()`, counting requests and connections */
async function holdingServer(t: Test) {
  const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  let connections = 0;
  let released = false;
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held.push({ req, res });
      if (released) answer(res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    held,
    connections: () => connections,
    release() {
      released = true;
      for (const h of held) if (!h.res.headersSent) answer(h.res);
    },
  };
}

const read = async (p: ReturnType<McpUpstreams['request']>) => {
  const r = await p;
  for await (const _ of r.body);
  return r.status;
};

t.test('calls share at most `connections` keep-alive connections per server; the rest wait their turn', async (t) => {
  const srv = await holdingServer(t);
  const ups = new McpUpstreams(2);
  t.teardown(() => ups.close());
  const signal = new AbortController().signal;
  const calls = [1, 2, 3].map(() => read(ups.request(srv.url, 'POST', { 'content-type': 'application/json' }, '{}', signal)));
  await waitFor(() => srv.held.length >= 2, { what: 'two calls to reach the server' });
  srv.release();
  t.same(await Promise.all(calls), [200, 200, 200], 'every call answered');
  t.equal(srv.connections(), 2, 'the third call waited for a connection instead of opening its own');
  t.equal(await read(ups.request(srv.url, 'POST', {}, '{}', signal)), 200);
  t.equal(srv.connections(), 2, 'a later call reuses a kept-alive connection');
});

t.test('an event stream does not wait behind calls that fill the pool', async (t) => {
  const srv = await holdingServer(t);
  const ups = new McpUpstreams(1);
  t.teardown(() => ups.close());
  const signal = new AbortController().signal;
  const call = read(ups.request(srv.url, 'POST', {}, '{}', signal));
  await waitFor(() => srv.held.length === 1, { what: 'the call to reach the server' });
  const stream = read(ups.request(srv.url, 'GET', { accept: 'text/event-stream' }, undefined, signal));
  const got = await waitFor(() => srv.held.find((h) => h.req.method === 'GET'), { what: 'the GET to reach the server while the call is held' });
  t.ok(got, 'the GET arrived on a connection of its own');
  srv.release();
  t.same(await Promise.all([call, stream]), [200, 200]);
});

t.test('an aborted request releases its body, and the pool closes', async (t) => {
  const srv = await holdingServer(t);
  const ups = new McpUpstreams(1);
  const ac = new AbortController();
  const p = ups.request(srv.url, 'POST', {}, '{}', ac.signal);
  await waitFor(() => srv.held.length === 1, { what: 'the call to reach the server' });
  ac.abort(new Error('deadline'));
  await t.rejects(p, 'the caller sees the abort');
  srv.release();
  t.equal(await read(ups.request(srv.url, 'POST', {}, '{}', new AbortController().signal)), 200, 'the pool still serves the next call');
  await ups.close();
});
