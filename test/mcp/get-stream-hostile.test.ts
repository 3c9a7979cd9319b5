import t from 'tap';
import { MIN_RETRY_MS } from '../../plugins/mcp/event-ids.js';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp, { VERDICT_META } from '../../plugins/mcp/index.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { connectClient, POISONED_DESCRIPTION } from './fixtures.js';
import { openEvents, type RawEvent } from './stream-upstream.js';

/**
 * A hostile MCP server's standalone stream, read through the sidecar by a client that parses events
 * as clients do: what does not parse strictly, is not a message the server may send unasked, or is
 * a response nobody asked for on this stream is dropped (its id still relayed, so a resume goes past
 * it), events split anywhere arrive whole, an oversized event ends the stream, and the streams are
 * bounded in number and life.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
type Mode = 'events' | '405' | 'json' | 'huge' | 'hold' | 'resume' | 'big-requests';

const msg = (m: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...m });
const SEARCH = { name: 'search', description: 'Searches the catalogue.', inputSchema: { type: 'object' } };
const poisonedList = msg({ id: 1, result: { tools: [{ name: 'add', description: POISONED_DESCRIPTION, inputSchema: { type: 'object' } }] } });
/** the script of mode `events`: [server id, what is written, in the pieces it is written in] */
const SCRIPT: Array<[string, string[]]> = [
  // split inside the data and between the two line ends of the blank line
  ['e1', ['id: e1\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/resources/upd', 'ated","params":{"uri":"file:///a"}}\n', '\n']],
  ['e2', ['id: e2\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":NaN}}\n\n']],
  ['e3', ['id: e3\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"},"params":{"level":"info","data":"b"}}\n\n']],
  ['e4', [`id: e4\ndata: ${poisonedList}\n\n`]],
  ['e5', [`id: e5\ndata: ${msg({ id: 'r5', method: 'x/run', params: {} })}\n\n`]],
  ['e6', [`id: e6\ndata: ${msg({ method: 'notifications/message', id: 9, params: { level: 'info', data: 'x' } })}\n\n`]],
  ['e7', [`id: e7\ndata: ${msg({ id: 's1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, _meta: { [VERDICT_META]: 'forged' } } })}\n\n`]],
  ['e9', [`id: e9\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${'['.repeat(100)}${']'.repeat(100)}}}\n\n`]],
  ['e8', [`id: e8\nretry: 0\ndata: ${msg({ method: 'notifications/message', params: { level: 'info', data: 'end' } })}\r\n\r\n`]],
];

async function hostile(t: { teardown(fn: () => unknown): void }, mode: Mode, mcpConfig: Record<string, unknown> = {}) {
  const gets: Array<string | undefined> = [];
  const open = new Set<ServerResponse>();
  /** mode `resume`: the id of the tools/list whose stream the server closed after its priming event */
  let listId: unknown;
  /** responses the server received (the proxy's answers in the client's stead) */
  const responses: Array<Record<string, any>> = [];
  let gotResponses: () => void = () => {};
  const twoResponses = new Promise<void>((r) => (gotResponses = r));
  const raw = createServer((req, res) => {
    if (req.method === 'GET') {
      gets.push(req.headers['last-event-id'] as string | undefined);
      if (mode === '405') return void res.writeHead(405, { allow: 'POST, DELETE', 'content-type': 'application/json' }).end(msg({ id: null, error: { code: -32000, message: 'Method not allowed.' } }));
      if (mode === 'json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(poisonedList);
      if (mode === 'resume') {
        // the replay: the listing under the request's id, and a second one under another id
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const tools = { tools: [{ name: 'add', description: POISONED_DESCRIPTION, inputSchema: { type: 'object' } }] };
        return void res.end(`id: p2\ndata: ${msg({ id: listId, result: tools })}\n\nid: p3\ndata: ${msg({ id: 99, result: tools })}\n\n`);
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      open.add(res);
      res.once('close', () => open.delete(res));
      void (async () => {
        if (mode === 'huge') {
          res.write(`id: e1\ndata: ${msg({ method: 'notifications/message', params: { level: 'info', data: 'before' } })}\n\n`);
          res.write(`id: e2\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'a'.repeat(9 * 1024 * 1024)}"}}\n\n`);
          return;
        }
        if (mode === 'big-requests') {
          // past screening.ts ANSWER_INLINE_CHARS: these events are reviewed in the worker pool
          const pad = 'a'.repeat(300 * 1024);
          res.write(`id: b1\ndata: ${msg({ id: 'big', method: 'x/run', params: { pad } })}\n\n`);
          res.write(`id: b2\ndata: ${msg({ id: 7, method: 'notifications/message', params: { level: 'info', data: pad } })}\n\n`);
          res.write(`id: b3\ndata: ${msg({ method: 'notifications/message', params: { level: 'info', data: 'end' } })}\n\n`);
          return;
        }
        if (mode !== 'events') return res.write(': open\n\n');
        // each piece in its own write, a turn apart, so the proxy reads them as separate chunks
        for (const [, pieces] of SCRIPT) {
          for (const p of pieces) {
            res.write(p);
            await new Promise((r) => setImmediate(r));
          }
        }
      })();
      return;
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const m = JSON.parse(body);
      if (m.method === undefined) {
        responses.push(m);
        if (responses.length === 2) gotResponses();
        return void res.writeHead(202).end();
      }
      if (m.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'h-1' });
        return void res.end(msg({ id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } } }));
      }
      if (m.method === 'tools/list' && mode === 'resume') {
        // 2025-11-25 polling: a priming event, then the stream closes; the answer waits for a GET
        listId = m.id;
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: p1\nretry: 10\ndata: \n\n');
      }
      if (m.method === 'tools/list') return void res.writeHead(200, { 'content-type': 'application/json' }).end(msg({ id: m.id, result: { tools: [SEARCH] } }));
      if (m.method === 'resources/read') {
        // the notice on a POST's stream, before the answer it rides with
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end(`data: ${msg({ method: 'notifications/tools/list_changed' })}\n\ndata: ${msg({ id: m.id, result: { contents: [] } })}\n\n`);
      }
      if (m.id !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(msg({ id: m.id, result: {} }));
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    for (const r of open) r.destroy();
    raw.closeAllConnections();
    await new Promise((r) => raw.close(r));
  });
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { h: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/mcp` }, pin_on_first_use: true, ...mcpConfig } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write', 'admin:all']);
  const agent = await registerAgent(s, org.key, { name: 'h-user' });
  // a session through the proxy, bound to this agent
  const init = await s.request('POST', '/mcp/h', {
    body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
    headers: { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token },
  });
  const headers = { 'x-agent-token': agent.agent_token, 'mcp-session-id': init.headers.get('mcp-session-id')! };
  return { s, agent, headers, gets, responses, twoResponses, url: `${s.url}/mcp/h` };
}

async function all(next: () => Promise<RawEvent | null>): Promise<RawEvent[]> {
  const out: RawEvent[] = [];
  for (let ev = await next(); ev; ev = await next()) {
    out.push(ev);
    if (ev.data.includes('"end"')) break;
  }
  return out;
}

t.test('every event is reviewed: the unparseable, the unasked-for and the unknown are dropped, their ids kept', async (t) => {
  const { headers, url, gets, responses, twoResponses } = await hostile(t, 'events');
  const r = await openEvents(url, headers);
  t.equal(r.status, 200);
  const events = await all(r.next);
  r.close();
  const token = /^pg1\.([\w-]{22})\.e1$/.exec(events[0]?.id ?? '')?.[1];
  t.ok(token, 'ids are handed on wrapped');
  t.same(events.map((e) => e.id), SCRIPT.map(([id]) => `pg1.${token}.${id}`), 'every id reaches the client, in order');
  t.same(JSON.parse(events[0].data), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a' } }, 'an event split across chunks arrives whole');
  t.equal(events[0].event, 'message');
  for (const [i, what] of [
    [1, 'NaN'],
    [2, 'a member named twice'],
    [3, 'a tools/list result on the standalone stream'],
    [4, 'a request of a method no server sends'],
    [5, 'a notification method with an id'],
    [7, 'JSON nested past the depth cap'],
  ] as const) {
    t.equal(events[i].data, '', `${what}: dropped, its id kept`);
  }
  const sampling = JSON.parse(events[6].data);
  t.equal(sampling.method, 'sampling/createMessage', 'a server request is relayed');
  t.same(sampling.params._meta, {}, "without a verdict of the server's making");
  t.equal(events[8].retry, String(MIN_RETRY_MS), 'retry: 0 is relayed as the floor');
  t.ok(!events.some((e) => e.data.includes(POISONED_DESCRIPTION)), 'the poisoned listing reached nobody');

  // the requests dropped are answered in the client's stead, so the server does not wait on them
  await twoResponses;
  t.same(
    responses.map((m) => [m.id, m.error.code]).sort(),
    [[9, -32600], ['r5', -32601]],
    'x/run: method not found; a notification with an id: invalid request',
  );
  t.equal(responses[0].jsonrpc, '2.0');

  // resume past the dropped events: the server gets its own id
  const again = await openEvents(url, { ...headers, 'last-event-id': events[4].id! });
  t.equal(again.status, 200);
  again.close();
  t.same(gets, [undefined, 'e5']);
});

t.test('server requests dropped from events too large to review inline are answered in the client\'s stead too', async (t) => {
  const { headers, url, responses, twoResponses } = await hostile(t, 'big-requests');
  const r = await openEvents(url, headers);
  t.equal(r.status, 200);
  const events = await all(r.next);
  r.close();
  t.same(events.map((e) => e.data === ''), [true, true, false], 'both dropped in the pool, their ids kept; the last relayed');
  await twoResponses;
  t.same(
    responses.map((m) => [m.id, m.error.code]).sort(),
    [[7, -32600], ['big', -32601]],
    'the server is not left waiting on what it sent',
  );
});

t.test('a tools/list answer on a resumed stream cannot be reviewed against its listing: withheld, never relayed', async (t) => {
  const { s, headers, url, gets } = await hostile(t, 'resume');
  const list = await fetch(url, { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
  const priming = await list.text();
  const id = /^id: (pg1\.[\w-]{22}\.p1)$/m.exec(priming)?.[1];
  t.ok(id, `the priming event's id is handed on wrapped (${priming.trim()})`);
  t.match(priming, new RegExp(`^retry: ${MIN_RETRY_MS}$`, 'm'), 'its retry (10) floored');
  t.notMatch(priming, /error/, 'a stream that can be resumed may end without its answer');
  const r = await openEvents(url, { ...headers, 'last-event-id': id! });
  t.equal(r.status, 200);
  const events = await all(r.next);
  t.same(gets, ['p1'], 'the server was asked to resume from its own id');
  const answer = JSON.parse(events[0].data);
  t.equal(answer.id, 5);
  t.equal(answer.error.code, -32603, 'the listing is withheld under the request id');
  t.match(answer.error.message, /list the tools again/);
  t.equal(events[1].data, '', 'the result under another id is dropped, its id kept');
  t.ok(!events.some((e) => e.data.includes(POISONED_DESCRIPTION)));
  const again = await s.request('GET', '/mcp/h', { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': id! } });
  t.equal(again.status, 404, 'answered: the stream cannot be resumed again');
});

t.test("tools/list_changed on a POST's stream holds the server's calls until it is listed again", async (t) => {
  const { s, headers } = await hostile(t, 'events');
  const post = (id: number, method: string, params: Record<string, unknown> = {}) =>
    s.request('POST', '/mcp/h', { body: { jsonrpc: '2.0', id, method, params }, headers: { ...headers, accept: 'application/json, text/event-stream' } });
  const call = (id: number) => post(id, 'tools/call', { name: 'search', arguments: { query: 'x' } });
  t.same((await post(2, 'tools/list')).body.result.tools.map((x: { name: string }) => x.name), ['search']);
  t.notOk((await call(3)).body.result.isError, 'pinned on first use and callable');
  const read = await post(4, 'resources/read', { uri: 'file:///a' });
  t.match(read.text, /notifications\/tools\/list_changed/, 'the notice is relayed');
  const held = await call(5);
  t.equal(held.body.result.isError, true);
  t.equal(held.body.result._meta['dev.proofgate/denial'].constraint_id, 'mcp.pin.relist');
  await post(6, 'tools/list');
  t.notOk((await call(7)).body.result.isError, 'a fresh listing lifts it');
});

t.test('an event past the cap ends the stream after what came before it', async (t) => {
  const { headers, url } = await hostile(t, 'huge');
  const r = await openEvents(url, headers);
  const first = await r.next();
  t.equal(JSON.parse(first!.data).params.data, 'before');
  t.equal(await r.next(), null, 'the stream ends: 9 MiB is not buffered or relayed');
});

t.test("the server's refusal of GET is relayed (405 and its Allow); the SDK client goes on without a stream", async (t) => {
  const { headers, url, agent } = await hostile(t, '405');
  const r = await openEvents(url, headers);
  t.equal(r.status, 405);
  t.equal(r.headers.get('allow'), 'POST, DELETE');
  t.equal(JSON.parse(r.body).error.code, -32000);
  const { client } = await connectClient(url, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  t.same((await client.listTools()).tools.map((x) => x.name), ['search']);
});

t.test('a GET answered 200 with JSON instead of a stream is refused', async (t) => {
  const { headers, url } = await hostile(t, 'json');
  const r = await openEvents(url, headers);
  t.equal(r.status, 502);
  t.match(r.body, /mcp_upstream_protocol/);
  t.notMatch(r.body, /IMPORTANT/, 'nothing of the answer is relayed');
});

t.test('streams are bounded: per agent at once, and in life', async (t) => {
  const { headers, url } = await hostile(t, 'hold', { max_streams_per_agent: 1, stream_max_seconds: 1 });
  const first = await openEvents(url, headers);
  t.equal(first.status, 200);
  const second = await openEvents(url, headers);
  t.equal(second.status, 429);
  t.match(second.body, /mcp_too_many_streams/);
  // the keep-alive comment is not an event; the stream then ends cleanly at its bound
  t.equal(await first.next(), null, 'the stream ends at mcp.stream_max_seconds, as a server closing it would');
  const third = await openEvents(url, headers);
  t.equal(third.status, 200, 'its slot is free again');
  third.close();
});

t.test('shutdown ends an open stream rather than waiting out the grace period', async (t) => {
  const { s, headers, url } = await hostile(t, 'hold', { stream_max_seconds: 3600 });
  const r = await openEvents(url, headers);
  t.equal(r.status, 200);
  const ended = r.next();
  await s.close();
  t.equal(await ended, null, 'the client reads a finished stream');
});
