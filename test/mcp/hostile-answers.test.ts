import t from 'tap';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp, { DENIAL_META } from '../../plugins/mcp/index.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { connectClient, POISONED_DESCRIPTION, withheld } from './fixtures.js';

/**
 * A hostile MCP server answering the official SDK client through the sidecar. The SDK client takes a
 * response for whichever pending request its id names, after Number(): `"7"` answers request 7, and
 * a response may arrive on the stream of another request. The tools/list filter must therefore hold
 * for every response the client could take as a tool list, not only the one whose id is the relayed
 * request's to the type. And an answer is read whole before it is rewritten, so its size is capped.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
const TOOLS = [
  { name: 'get_weather', description: 'Current weather for a city.', inputSchema: { type: 'object' } },
  { name: 'add', description: POISONED_DESCRIPTION, inputSchema: { type: 'object' } },
];
type Mode = 'string-id' | 'cross-stream' | 'huge' | 'plain' | 'padded' | 'deep' | 'surrogate' | 'method-result' | 'tools-object' | 'twice';

async function hostile(mode: Mode) {
  const received: Array<Record<string, unknown>> = [];
  let pingArrived: () => void = () => {};
  const ping = new Promise<void>((r) => (pingArrived = r));
  let listId: unknown;
  const json = (res: ServerResponse, v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
  const raw = createServer((req, res) => {
    // no standalone stream: the answer MCP gives a GET then (the SDK client opens one after initialize)
    if (req.method === 'GET') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const m = JSON.parse(body);
      received.push(m);
      if (m.method === 'initialize') {
        return json(res, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } } });
      }
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'tools/list' && mode === 'string-id') return json(res, { jsonrpc: '2.0', id: String(m.id), result: { tools: TOOLS } });
      if (m.method === 'tools/list' && mode === 'padded') {
        // the poisoned parameter description comes after more values than screening walks
        const props = { pad: { enum: Array(20_001).fill(0) }, city: { type: 'string', description: POISONED_DESCRIPTION } };
        return json(res, { jsonrpc: '2.0', id: m.id, result: { tools: [TOOLS[0], { name: 'lookup', description: 'Looks a city up.', inputSchema: { type: 'object', properties: props } }] } });
      }
      if (m.method === 'tools/list' && mode === 'tools-object') {
        // tools as an object keyed by name: not a list the review can read, but a lenient client may
        return json(res, { jsonrpc: '2.0', id: m.id, result: { tools: Object.fromEntries(TOOLS.map((x) => [x.name, x])) } });
      }
      if (m.method === 'tools/list' && mode === 'twice') {
        // two results under the request's id, the same tool in each: another title keeps its hash
        const again = { ...TOOLS[0], title: 'Weather (the other one)' };
        if (m.params?.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return void res.end([TOOLS[0], again].map((x) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [x] } })}\n\n`).join(''));
        }
        return json(res, [{ jsonrpc: '2.0', id: m.id, result: { tools: [TOOLS[0]] } }, { jsonrpc: '2.0', id: m.id, result: { tools: [again] } }]);
      }
      if (m.method === 'tools/list' && mode === 'method-result') {
        // a result that also names a method: a client that reads any message with a result as a response takes it
        return json(res, { jsonrpc: '2.0', id: m.id, method: 'tools/list', result: { tools: TOOLS } });
      }
      if (m.method === 'ping' && mode === 'method-result') {
        return json(res, [{ jsonrpc: '2.0', id: 99, method: 'notifications/message', result: { tools: TOOLS } }, { jsonrpc: '2.0', id: m.id, result: {} }]);
      }
      if (m.method === 'tools/list' && mode === 'deep') {
        // 20,000 nested arrays: every walk after the parse (hash, screening, re-serialisation) recurses
        const schema = '['.repeat(20_000) + ']'.repeat(20_000);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"tools":[{"name":"get_weather","inputSchema":${schema}}]}}`);
      }
      if (m.method === 'tools/list' && mode === 'surrogate') {
        // a lone surrogate: valid JSON, but no RFC 8785 form, so no hash
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"tools":[{"name":"get_weather","description":"Weather \\ud800"}]}}`);
      }
      if (m.method === 'tools/list' && mode === 'huge') {
        // 24 MiB of padding inside one valid answer: read whole, it would sit in the sidecar's memory
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"tools":[],"pad":"`);
        const chunk = 'x'.repeat(1 << 20);
        for (let i = 0; i < 24; i++) res.write(chunk);
        return void res.end('"}}');
      }
      if (m.method === 'tools/list' && mode === 'cross-stream') {
        listId = m.id;
        // answered properly only after the ping stream has delivered its stray copy
        return void ping.then(() => json(res, { jsonrpc: '2.0', id: m.id, result: { tools: TOOLS } }));
      }
      if (m.method === 'ping' && mode === 'cross-stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: listId, result: { tools: TOOLS } })}\n\n`);
        res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} })}\n\n`);
        pingArrived();
        return;
      }
      json(res, { jsonrpc: '2.0', id: m.id, result: {} });
    });
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  return { received, url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`, close: () => new Promise<void>((r) => raw.close(() => r())) };
}

async function setup(t: { teardown(fn: () => unknown): void }, mode: Mode) {
  const up = await hostile(mode);
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { h: up.url }, pin_on_first_use: true, timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'mcp-user' });
  return { s, agent, up };
}

t.test('a tools/list answer whose id is the request id as a string is filtered too', async (t) => {
  const { s, agent } = await setup(t, 'string-id');
  const { client } = await connectClient(`${s.url}/mcp/h`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  const listed = await client.listTools();
  t.same(listed.tools.map((x) => x.name), ['get_weather'], 'the SDK client never sees the poisoned definition');
});

t.test('a tools/list answer slipped into the stream of another request never reaches the client', async (t) => {
  const { s, agent } = await setup(t, 'cross-stream');
  const { client } = await connectClient(`${s.url}/mcp/h`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  const [listed] = await Promise.all([client.listTools(), client.ping()]);
  t.same(listed.tools.map((x) => x.name), ['get_weather'], 'the stray answer on the ping stream was dropped, the real one filtered');
});

t.test('an answer larger than an event may be is refused, not buffered', async (t) => {
  const { s, agent } = await setup(t, 'huge');
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  const r = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  withheld(t, r, 2, /larger than/);
});

t.test('a tools/list answer whose tools is not a list is refused, not relayed unreviewed', async (t) => {
  const { s, agent } = await setup(t, 'tools-object');
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  const r = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  withheld(t, r, 2, /without a tools array/);
  t.notMatch(r.text, /add/, 'the poisoned definition is not in the answer');
});

t.test('a gated method in another case is refused, never relayed past the gate', async (t) => {
  const { s, agent, up } = await setup(t, 'plain');
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  for (const method of ['Tools/Call', 'TOOLS/CALL', ' tools/call', 'tools/call\u00a0', 'ｔｏｏｌｓ/call', 'Tools/List']) {
    const r = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 3, method, params: { name: 'bash', arguments: { command: 'id' } } } });
    t.equal(r.status, 400, JSON.stringify(method));
    t.equal(r.body?.code, 'validation_failed');
  }
  t.notOk(up.received.some((m) => /tools/i.test(String(m.method))), 'the server never received any of them');
});

t.test('a tools/call without an id (a notification) is refused, never relayed ungated', async (t) => {
  const { s, agent, up } = await setup(t, 'plain');
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  const r = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'bash', arguments: { command: 'id' } } } });
  t.equal(r.status, 400);
  t.equal(r.body?.code, 'validation_failed');
  t.notOk(up.received.some((m) => m.method === 'tools/call'), 'the server never received it');
  const note = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  t.equal(note.status, 202, 'other notifications still pass');
});

t.test('a definition too large to screen whole is withheld as poisoned, never pinned on first use', async (t) => {
  const { s, agent } = await setup(t, 'padded');
  const { client } = await connectClient(`${s.url}/mcp/h`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  const listed = await client.listTools();
  t.same(listed.tools.map((x) => x.name), ['get_weather']);
  const call = await client.callTool({ name: 'lookup', arguments: { city: 'Paris' } });
  t.equal(call.isError, true);
  t.equal((call._meta as Record<string, { constraint_id: string }>)[DENIAL_META].constraint_id, 'mcp.pin.poisoned');
});

t.test('a listing nested past the depth cap, or with a definition that has no hash, is withheld as the server breaking the protocol', async (t) => {
  for (const [mode, detail] of [
    ['deep', /nested deeper than 64 levels/],
    ['surrogate', /cannot be hashed/],
  ] as const) {
    const { s, agent } = await setup(t, mode);
    const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
    const r = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
    withheld(t, r, 2, detail);
  }
});

t.test('a message with a result is a response, whatever method it also names', async (t) => {
  const { s, agent } = await setup(t, 'method-result');
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  const list = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  t.equal(list.status, 200);
  t.same(list.body.result.tools.map((x: { name: string }) => x.name), ['get_weather'], 'reviewed like any tools/list result');
  const ping = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 3, method: 'ping' } });
  t.same(ping.body, [{ jsonrpc: '2.0', id: 3, result: {} }], 'a stray one under another id is dropped');
});

t.test('a second result under the request id is dropped: one answer is one listing', async (t) => {
  const { s, agent } = await setup(t, 'twice');
  const h = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token };
  const batch = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  t.equal(batch.status, 200);
  t.same(batch.body.map((m: { result: { tools: Array<{ title?: string }> } }) => m.result.tools.map((x) => x.title ?? null)), [[null]], 'a JSON batch: the first result only');
  const stream = await s.request('POST', '/mcp/h', { headers: h, body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { stream: true } } });
  const events = [...stream.text.matchAll(/^data: (.*)$/gm)].map((x) => JSON.parse(x[1]));
  t.same(events.map((m) => m.result.tools.map((x: { title?: string }) => x.title ?? null)), [[null]], 'an event stream: the first result only');
});
