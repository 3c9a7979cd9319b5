import t from 'tap';
import { rmSync } from 'node:fs';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp, { DENIAL_META, VERDICT_META } from '../../plugins/mcp/index.js';
import { startServer, type TestResponse, type TestServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { startUpstream } from './fixtures.js';
import { startHostileUpstream, type AnswerMaker } from '../helpers/hostile-wire.js';

/**
 * Issue 39, part 3: JSON-RPC batches through the proxy, raw HTTP (the SDK client sends none). A
 * batch is relayed on a session that negotiated 2025-03-26, each member reviewed as if alone, and
 * refused on 2025-06-18 and later, as the spec says; hostile batches stay bounded.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];
const ACCEPT = 'application/json, text/event-stream';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const up = await startUpstream({ progressSteps: 2 });
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { demo: { url: up.url } }, pin_on_first_use: true } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write', 'admin:all']);
  const agent = await registerAgent(s, org.key, { name: 'mcp-batch' });
  return { up, s, org, agent };
}

/** every JSON-RPC message of an answer, JSON or event stream */
function messages(r: TestResponse): Array<Record<string, any>> {
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return r.text
      .split(/\n\n/)
      .map((block) => block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'))
      .filter(Boolean)
      .flatMap((d) => [JSON.parse(d)].flat());
  }
  return r.body === undefined ? [] : [r.body].flat();
}

async function session(s: TestServer, token: string, version: string): Promise<{ sid: string; post(body: unknown, headers?: Record<string, string>): Promise<TestResponse> }> {
  const h = { accept: ACCEPT, 'x-agent-token': token };
  const init = await s.request('POST', '/mcp/demo', { headers: h, body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } } });
  const sid = init.headers.get('mcp-session-id')!;
  const answer = messages(init).find((m) => m.id === 0);
  if (answer?.result?.protocolVersion !== version) throw new Error(`the server negotiated ${JSON.stringify(answer)}`);
  const post = (body: unknown, headers: Record<string, string> = {}) => s.request('POST', '/mcp/demo', { headers: { ...h, 'mcp-session-id': sid, ...headers }, body });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { sid, post };
}

const call = (id: unknown, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

t.test('a 2025-03-26 batch: every member relayed and reviewed as if alone, answers matched back by id', async (t) => {
  const { up, s, agent } = await setup(t);
  const { post } = await session(s, agent.agent_token, '2025-03-26');
  await post({ jsonrpc: '2.0', id: 'pin', method: 'tools/list' });

  const r = await post([
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    call(2, 'get_weather', { city: 'Paris' }),
    call(3, 'add', { a: 1, b: 2 }),
    call('4', 'search', { query: 'key AKIAIOSFODNN7EXAMPLE' }),
    call(5, 'search', { query: 'cats' }),
    42,
    [call(6, 'add', { a: 1, b: 1 })],
    { jsonrpc: '1.0', id: 7, method: 'tools/list' },
    { jsonrpc: '2.0', id: 8, method: 'Tools/Call', params: { name: 'bash', arguments: { command: 'id' } } },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
  ]);
  t.equal(r.status, 200, r.text.slice(0, 300));
  const all = messages(r);
  const answers = all.filter((m) => 'result' in m || 'error' in m);
  const byId = new Map<string, any>(answers.map((m) => [JSON.stringify(m.id), m]));
  t.match(r.headers.get('content-type'), /^text\/event-stream/, 'the members the server answered with a stream: one merged stream');
  t.same(answers.map((m) => JSON.stringify(m.id)).sort(), ['"4"', '1', '2', '3', '5', '7', '8', 'null', 'null'], 'one answer per request, under its own id');

  t.same(byId.get('1').result.tools.map((x: { name: string }) => x.name).sort(), ['get_weather', 'search'], 'the listing member is reviewed: the poisoned tool withheld');
  t.match(byId.get('2').result.content[0].text, 'Sunny in Paris');
  t.match(byId.get('2').result._meta[VERDICT_META], /^[\w-]+\.[\w-]+\.[\w-]+$/, 'an allowed member carries its own verdict');
  t.equal(byId.get('3').result._meta[DENIAL_META].constraint_id, 'mcp.pin.poisoned', 'a denied member gets its own answer');
  t.equal(byId.get('"4"').result._meta[DENIAL_META].constraint_id, 'agents.tool_policy');
  t.match(byId.get('5').result.content[0].text, 'results for cats');
  t.equal(byId.get('7').error.code, -32600, 'a malformed member is its own invalid request');
  t.equal(byId.get('8').error.code, -32600, 'a gated method in another case is refused as alone');
  t.equal(answers.filter((m) => m.id === null).length, 2, 'a member that is no object (a number, a nested batch) is answered under a null id');
  t.same(up.state.calls.map((c) => c.name).sort(), ['get_weather', 'search'], 'no denied, malformed or nested member reached the server');

  const denied = await post([call(10, 'add', { a: 1, b: 2 }), call(11, 'bash', { command: 'id' })]);
  t.match(denied.headers.get('content-type'), /^application\/json/, 'no member reached the server: one JSON array');
  t.same(messages(denied).map((m) => [m.id, m.result._meta[DENIAL_META].constraint_id]), [[10, 'mcp.pin.poisoned'], [11, 'mcp.pin.unlisted']]);

  const notes = await post([{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }]);
  t.equal(notes.status, 202, 'notifications only: accepted without a body');
  t.equal(notes.text, '');
});

t.test('hostile batches are refused whole, and nothing of them reaches the server', async (t) => {
  const { up, s, agent } = await setup(t);
  const { sid, post } = await session(s, agent.agent_token, '2025-03-26');
  await post({ jsonrpc: '2.0', id: 'pin', method: 'tools/list' });
  const before = up.state.calls.length;
  const cases: Array<[string, unknown, Record<string, string>?]> = [
    ['duplicate ids', [call(1, 'get_weather', { city: 'a' }), call(1, 'search', { query: 'b' })]],
    ['ids equal as text', [call(1, 'get_weather', { city: 'a' }), call('1', 'search', { query: 'b' })]],
    ['an empty batch', []],
    ['a huge batch', Array.from({ length: 33 }, (_, i) => call(i, 'get_weather', { city: 'x' }))],
    ['initialize inside a batch', [{ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }]],
    ['a revision the session did not negotiate', [call(1, 'get_weather', { city: 'a' })], { 'mcp-protocol-version': '2025-06-18' }],
  ];
  for (const [what, body, headers] of cases) {
    const r = await post(body, headers);
    t.equal(r.status, 400, `${what}: ${r.text.slice(0, 200)}`);
    t.equal(r.body?.code, 'validation_failed', what);
  }
  const deep = await s.request('POST', '/mcp/demo', { raw: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, headers: { accept: ACCEPT, 'content-type': 'application/json', 'x-agent-token': agent.agent_token, 'mcp-session-id': sid } });
  t.equal(deep.status, 400, 'nested arrays past the depth cap');
  t.equal(up.state.calls.length, before, 'no member of a refused batch was relayed');

  // a batch on someone else's session is that session's business: no such session for this agent
  const other = await registerAgent(s, (await tenant(s, ['verify:read', 'agent:write'])).key, { name: 'other' });
  const foreign = await s.request('POST', '/mcp/demo', { headers: { accept: ACCEPT, 'x-agent-token': other.agent_token, 'mcp-session-id': sid }, body: [call(1, 'get_weather', { city: 'a' })] });
  t.equal(foreign.status, 404);
  const none = await s.request('POST', '/mcp/demo', { headers: { accept: ACCEPT, 'x-agent-token': agent.agent_token }, body: [call(1, 'get_weather', { city: 'a' })] });
  t.equal(none.status, 400, 'without a session the negotiated revision is unknown');
});

t.test('a 2025-06-18 session refuses batches, as that revision says', async (t) => {
  const { up, s, agent } = await setup(t);
  const { post } = await session(s, agent.agent_token, '2025-06-18');
  const r = await post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], { 'mcp-protocol-version': '2025-06-18' });
  t.equal(r.status, 400);
  t.match(r.body?.detail, /2025-06-18/);
  t.equal(up.state.calls.length, 0);
  const alone = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' });
  t.equal(alone.status, 200, 'one message at a time still passes');
});

t.test('a JSON server: the answers are spliced into one array, and what they add up to is bounded', async (t) => {
  const big = 'x'.repeat(3 * 1024 * 1024);
  const json =
    (value: unknown, headers: Record<string, string> = {}): AnswerMaker =>
    (res) =>
      void res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
  const up = await startHostileUpstream((r) => {
    const m = r.json;
    if (m?.method === 'initialize') return json({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'j', version: '1' } } }, { 'mcp-session-id': 'json-session' });
    if (m?.method === 'tools/list') return json({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'get_weather', description: 'Weather.', inputSchema: { type: 'object' } }] } });
    if (m?.method === 'tools/call') return json({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.city === 'big' ? big : `sunny in ${m.params.arguments.city}` }] } });
    return (res) => void res.writeHead(202).end();
  });
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, config: { mcp: { servers: { demo: { url: up.url } }, pin_on_first_use: true } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'json' });
  const { post } = await session(s, agent.agent_token, '2025-03-26');
  await post({ jsonrpc: '2.0', id: 'pin', method: 'tools/list' });

  const small = await post([call(1, 'get_weather', { city: 'Oslo' }), call(2, 'get_weather', { city: 'Rome' }), call(3, 'bash', {})]);
  t.match(small.headers.get('content-type'), /^application\/json/);
  t.same(small.body.map((m: any) => [m.id, m.result.content[0].text.slice(0, 32)]), [[1, 'sunny in Oslo'], [2, 'sunny in Rome'], [3, 'proofgate denied this tool call:']], 'in member order');
  t.ok(small.body[0].result._meta[VERDICT_META], 'each allowed member with its own verdict');

  const r = await post([1, 2, 3, 4].map((id) => call(id, 'get_weather', { city: 'big' })));
  t.equal(r.status, 200);
  const answers = r.body as Array<Record<string, any>>;
  t.same(answers.map((m) => m.id).sort(), [1, 2, 3, 4], 'every member answered once');
  t.equal(answers.filter((m) => m.result?.content?.[0]?.text === big).length, 2, 'two 3 MiB answers fit under the batch bound');
  const withheld = answers.filter((m) => m.error);
  t.equal(withheld.length, 2);
  t.ok(withheld.every((m) => m.error.code === -32603 && /send it alone/.test(m.error.message)), 'the rest are withheld under their own ids');
});

t.test('the body schema and the relay bound a batch alike', async (t) => {
  const { readFileSync } = await import('node:fs');
  const { MAX_BATCH, BATCH_VERSIONS } = await import('../../plugins/mcp/batch.js');
  const schema = JSON.parse(readFileSync(new URL('../../../schemas/mcp/message.body.json', import.meta.url), 'utf8'));
  t.equal(schema.maxItems, MAX_BATCH);
  t.equal(schema.minItems, 1);
  t.same([...BATCH_VERSIONS], ['2025-03-26'], 'the one revision whose transport carries batches');
});
