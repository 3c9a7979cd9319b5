import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { clientCanBeAsked, OpeningStreams } from '../../plugins/mcp/stream-order.js';
import { startServer } from '../helpers/server.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import type { Store } from '../../core/store/store.js';
import { SESSION_COLLECTION } from '../../plugins/mcp/expiry.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { askingUpstream, type HoldGets } from './asking-upstream.js';

/**
 * A session's POSTs wait for the GET stream its client is opening (plugins/mcp/stream-order.ts). The
 * server is the official SDK's, with a tool that asks the client a question with no related request,
 * so the SDK sends it on the standalone GET stream or nowhere. The client is the official SDK's, which
 * opens its GET after `initialized` and does not wait for it. Two orders lose the question without
 * the wait: the call reaching the server while the GET is still being answered (the server's front
 * holds GETs here until the tool has asked), and the call leaving before the GET (the client's fetch
 * delays its GET here by 100 ms, a slow hop; the wait after `initialized` is 500 ms).
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];

interface ClientOptions {
  /** the client declares elicitation (the server may ask it); default true */
  askable?: boolean;
  /** what the client's fetch does with its GET: sends it (default), sends it 100 ms late, or answers it 405 itself (a client without a GET stream) */
  get?: 'now' | 'late' | 'never';
  /** the proofgate's store (default: its own LMDB store) */
  store?: (dataDir: string) => Store;
}

async function setup(t: { teardown(fn: () => unknown): void }, holdGets: HoldGets, c: ClientOptions = {}) {
  const up = await askingUpstream({ holdGets });
  t.teardown(() => up.close());
  const policy = { default: 'deny', rules: [{ tool: 'confirm', action: 'allow' }] };
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { asking: { url: up.url, policy } }, pin_on_first_use: true } }, store: c.store });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'order-user' });
  const askable = c.askable ?? true;
  const client = new Client({ name: 'order-test', version: '1.0.0' }, { capabilities: askable ? { elicitation: {} } : {} });
  if (askable) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: 'yes' } }));
  const fetchGet = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (init?.method === 'GET' && c.get === 'never') return new Response(null, { status: 405 });
    if (init?.method === 'GET' && c.get === 'late') await new Promise((r) => setTimeout(r, 100));
    return fetch(url, init);
  };
  // the SDK client opens its GET stream after `initialized`, without waiting for it
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp/asking`), { requestInit: { headers: { 'x-agent-token': agent.agent_token } }, fetch: fetchGet });
  await client.connect(transport);
  t.teardown(() => client.close());
  const held = async () => /svc_mcp_posts_held_total\{server="asking"\} (\d+)/.exec(await s.kernel.app.metrics.registry.metrics())?.[1] ?? '0';
  return { up, s, client, held };
}

const text = (r: Record<string, unknown>) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

t.test('a tool that asks on the standalone stream: its call waits for the GET, and the question reaches the client', async (t) => {
  const { up, client, held } = await setup(t, 'until-asked');
  t.same((await client.listTools()).tools.map((x) => x.name), ['confirm']);
  // the client's GET is at the server, which has not answered it yet
  await up.getArrived;
  const r = await client.callTool({ name: 'confirm', arguments: {} });
  t.equal(text(r), 'answered: yes', 'the elicitation found the GET stream and the client answered it');
  t.same(up.answers, ['yes']);
  t.equal(await held(), '1', 'one POST was held behind the opening GET');
});

t.test('a GET the server never answers delays one POST by the bound, then the session goes as before', async (t) => {
  const { up, client, held } = await setup(t, 'forever');
  await up.getArrived;
  const r = await client.listTools();
  t.same(r.tools.map((x) => x.name), ['confirm'], 'the listing came back');
  t.equal(await held(), '1');
  await client.listTools();
  t.equal(await held(), '1', 'a GET past the bound holds nothing more');
});

t.test("another agent's GET on the session is refused before it can hold the session's POSTs", async (t) => {
  const { up, s, client, held } = await setup(t, 'until-asked');
  await up.getArrived;
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const other = await registerAgent(s, org.key, { name: 'intruder' });
  const sid = (client.transport as StreamableHTTPClientTransport).sessionId as string;
  const res = await fetch(`${s.url}/mcp/asking`, { headers: { 'x-agent-token': other.agent_token, 'mcp-session-id': sid, accept: 'text/event-stream' } });
  t.equal(res.status, 404, 'no such session for that agent');
  await res.body?.cancel();
  t.equal(up.getCount, 1, "only the session's own GET reached the server (the check comes before the GET is counted as opening)");
  t.equal(await held(), '0');
});

t.test('a call sent before the GET leaves the client: held until the GET is up, and the question reaches the client', async (t) => {
  const { up, client, held } = await setup(t, 'no', { get: 'late' });
  t.same((await client.listTools()).tools.map((x) => x.name), ['confirm']);
  const r = await client.callTool({ name: 'confirm', arguments: {} });
  t.equal(text(r), 'answered: yes');
  t.same(up.answers, ['yes']);
  t.equal(await held(), '1', 'the listing, sent right after initialized, waited for the GET');
});

t.test('a client that cannot be asked is not held after initialized', async (t) => {
  const { held, client } = await setup(t, 'no', { askable: false, get: 'late' });
  t.same((await client.listTools()).tools.map((x) => x.name), ['confirm']);
  t.equal(await held(), '0');
});

t.test('a client that can be asked but opens no GET pays the wait after initialized once', async (t) => {
  const { up, held, client } = await setup(t, 'no', { get: 'never' });
  t.same((await client.listTools()).tools.map((x) => x.name), ['confirm']);
  t.equal(await held(), '1');
  await client.listTools();
  t.equal(await held(), '1', 'not again');
  t.equal(up.getCount, 0);
});

t.test("a session record that cannot be marked costs the order hint, not the client's notification or its GET", async (t) => {
  // every write of the order marks fails (the record's insert and its negotiated version still work)
  let refused = 0;
  const failingMarks = (dir: string): Store => {
    const store = new LmdbStore(dir);
    return new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'collection') return Reflect.get(target, prop, receiver);
        return (name: string) => {
          const c = target.collection(name);
          if (name !== SESSION_COLLECTION) return c;
          type Rec = { initialized_at?: string; stream_up?: boolean } | undefined;
          const update = async (key: string, fn: (cur: Rec) => Rec) => {
            const cur = (await c.get(key)) as Rec;
            const next = fn(cur);
            if (next && (next.initialized_at !== cur?.initialized_at || next.stream_up !== cur?.stream_up)) {
              refused++;
              throw new Error('disk says no');
            }
            return c.update(key, fn as never);
          };
          return new Proxy(c, { get: (ct, p, r) => (p === 'update' ? update : (Reflect.get(ct, p, r) as unknown)) });
        };
      },
    });
  };
  const { up, client } = await setup(t, 'no', { store: failingMarks });
  t.same((await client.listTools()).tools.map((x) => x.name), ['confirm'], 'initialized was answered and the session goes on');
  const r = await client.callTool({ name: 'confirm', arguments: {} });
  t.equal(text(r), 'answered: yes', 'the GET stream is up and carried the question');
  t.ok(refused >= 2, `both marks were tried and refused (${refused})`);
  t.equal(up.getCount, 1);
});

t.test('OpeningStreams: waits only while a GET of the same key is opening, for every GET opening, and never past the bound', async (t) => {
  const o = new OpeningStreams(50);
  t.equal(await o.after('a'), false, 'nothing opening: no wait');
  const doneA1 = o.begin('a');
  const doneA2 = o.begin('a');
  t.equal(await o.after('b'), false, 'another session does not wait');
  let settled = false;
  const waiting = Promise.resolve(o.after('a')).then((w) => (settled = w));
  doneA1();
  doneA1();
  await new Promise((r) => setImmediate(r));
  t.equal(settled, false, 'one of two GETs answered (a second call changes nothing): still waiting');
  doneA2();
  t.equal(await waiting, true);
  t.same(o.size, { opening: 0, asking: 0 }, 'nothing left behind');
  o.begin('c');
  t.equal(await o.after('c'), true, 'a GET never answered: the wait ends at the bound');
  t.equal(await o.after('c'), false, 'and is not waited for again');
  const doneD = o.begin('d');
  doneD();
  t.equal(await o.after('d'), false, 'a GET answered before the POST came: no wait');

  const e = new OpeningStreams(5_000, 30);
  e.initialized('x');
  t.equal(await e.after('x'), false, 'initialized without an askable initialize: nothing expected');
  e.initializing('y');
  e.initialized('y');
  t.equal(await e.after('y'), true, 'an expected GET that never comes: the wait ends when the expectation lapses, not at the bound');
  t.same(e.size, { opening: 0, asking: 0 });
  e.initializing('z');
  e.initialized('z');
  const doneZ = e.begin('z');
  let zDone = false;
  const zWait = Promise.resolve(e.after('z')).then(() => (zDone = true));
  // past the expectation's 30 ms: the GET that began within it is still what the POST waits for
  await new Promise((r) => setTimeout(r, 60));
  t.equal(zDone, false, 'a GET that began within the expectation is waited for past it');
  doneZ();
  await zWait;
  t.equal(zDone, true);
  // a client that says initialized again does not open a second wait
  e.initializing('w');
  e.initialized('w');
  const doneW = e.begin('w');
  doneW();
  e.initialized('w');
  t.equal(await e.after('w'), false, 'a second initialized after the GET was answered expects nothing');
  e.initializing(`s\0${'x'.repeat(4096)}`);
  t.same(e.size, { opening: 0, asking: 0 }, "a server's kilobyte session id is not kept");
  t.ok(clientCanBeAsked({ capabilities: { sampling: {} } }) && clientCanBeAsked({ capabilities: { roots: { listChanged: true } } }));
  t.notOk(clientCanBeAsked({ capabilities: {} }) || clientCanBeAsked(null) || clientCanBeAsked({ capabilities: 'sampling' }));
});

