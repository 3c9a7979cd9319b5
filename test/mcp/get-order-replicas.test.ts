import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { PgStore } from '../../core/store/pg.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { SESSION_COLLECTION, type SessionRecord } from '../../plugins/mcp/expiry.js';
import { expectedFor, markInitialized, markStreamUp, streamElsewhere } from '../../plugins/mcp/session-order.js';
import { freshSchema, testDatabase, type TestDatabase } from '../helpers/pg.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';
import { askingUpstream } from './asking-upstream.js';

/**
 * The GET/POST order of an MCP session across replicas (plugins/mcp/session-order.ts). Two kernels
 * on one PostgreSQL schema; the client's initialize, `initialized` and GET go to replica A, its
 * calls to replica B, which saw neither. The GET leaves the client 300 ms late (a slow hop), so
 * the client's listing and call reach B first; the server's tool asks the client on the standalone
 * stream, which a call relayed at once would overtake, and the question would be lost.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];

const db = await testDatabase(t);
if (db) await twoReplicas(db);

async function twoReplicas(db: TestDatabase) {
  const schema = freshSchema();
  const up = await askingUpstream({ holdGets: 'no' });
  t.teardown(() => up.close());
  const policy = { default: 'deny', rules: [{ tool: 'confirm', action: 'allow' }] };
  const replica = () =>
    startServer({
      plugins: PLUGINS,
      config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { asking: { url: up.url, policy } }, pin_on_first_use: true } },
      store: () => new PgStore({ url: db.url, schema }),
    });
  const A: TestServer = await replica();
  t.teardown(() => A.close());
  const B: TestServer = await replica();
  t.teardown(() => B.close());
  const held = async (s: TestServer) => /svc_mcp_posts_held_total\{server="asking"\} (\d+)/.exec(await s.kernel.app.metrics.registry.metrics())?.[1] ?? '0';

  t.test("a call on the replica that saw neither `initialized` nor the GET waits for the GET by the session's record", async (t) => {
    const org = await tenant(A, ['verify:read', 'agent:write']);
    const agent = await registerAgent(A, org.key, { name: 'replica-user' });
    let posts = 0;
    const routed: string[] = [];
    const fetchSplit = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const path = new URL(String(url)).pathname;
      let target = A;
      if (init?.method === 'GET') await new Promise((r) => setTimeout(r, 300));
      else if (init?.method === 'POST' && ++posts > 2) target = B;
      routed.push(`${init?.method} ${target === A ? 'A' : 'B'}`);
      return fetch(`${target.url}${path}`, init);
    };
    const client = new Client({ name: 'replica-order', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: 'yes' } }));
    const transport = new StreamableHTTPClientTransport(new URL(`${A.url}/mcp/asking`), { requestInit: { headers: { 'x-agent-token': agent.agent_token } }, fetch: fetchSplit });
    await client.connect(transport);
    t.teardown(() => client.close());

    t.same((await client.listTools()).tools.map((x) => x.name), ['confirm']);
    const r = await client.callTool({ name: 'confirm', arguments: {} });
    t.equal((r.content as Array<{ text?: string }>)[0]?.text, 'answered: yes', 'the question found the GET stream A relayed');
    t.same(up.answers, ['yes']);
    t.same(routed.slice(0, 2), ['POST A', 'POST A'], 'initialize and initialized went to A');
    t.ok(routed.includes('GET A') && routed.filter((x) => x === 'POST B').length >= 2, `the calls went to B (${routed.join(', ')})`);
    t.equal(await held(B), '1', "B held the listing, sent right after initialized, by the session's record");
    t.equal(await held(A), '0');
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId as string;
    const recs = await B.kernel.app.store.collection<SessionRecord>(SESSION_COLLECTION).list();
    const rec = recs.map((e) => e.value).find((v) => v.agent_id === agent.agent_id);
    t.ok(sid && rec?.asks && rec.initialized_at && rec.stream_up, 'the record says: can be asked, initialized, stream up');
  });
}

t.test('session-order: the record decides the wait, bounded by the waiting replica\'s own clock', async (t) => {
  const store = new LmdbStore(tempDir(t, 'proofgate-order-'));
  t.teardown(() => store.close());
  const sessions = store.collection<SessionRecord>(SESSION_COLLECTION);
  const base: SessionRecord = { server: 's', agent_id: 'agent-1', org_id: 'org-1', created_at: new Date().toISOString() };
  const now = Date.parse('2026-12-08T02:00:00.000Z');
  t.equal(expectedFor({ ...base }, now), 0, 'a client that cannot be asked: no wait');
  t.equal(expectedFor({ ...base, asks: true }, now), 0, 'not initialized yet: no wait');
  t.equal(expectedFor({ ...base, asks: true, initialized_at: new Date(now - 100).toISOString() }, now), 400);
  t.equal(expectedFor({ ...base, asks: true, initialized_at: new Date(now - 100).toISOString(), stream_up: true }, now), 0, 'stream up: no wait');
  t.equal(expectedFor({ ...base, asks: true, initialized_at: new Date(now - 60_000).toISOString() }, now), 0, 'long ago: no wait');
  t.equal(expectedFor({ ...base, asks: true, initialized_at: new Date(now + 60_000).toISOString() }, now), 500, "a replica whose clock is a minute ahead: never more than the expectation's 500 ms");
  t.equal(expectedFor({ ...base, asks: true, initialized_at: 'not a date' }, now), 0);

  // marks: once, and only on the binding they were read as
  await sessions.put('k', { ...base, asks: true });
  await markInitialized(store, 'k', { ...base, asks: true });
  const first = (await sessions.get('k'))?.initialized_at;
  t.ok(first, 'initialized marked');
  await markInitialized(store, 'k', { ...base, asks: true });
  t.equal((await sessions.get('k'))?.initialized_at, first, 'a second initialized (read before the first mark) changes nothing');
  await markStreamUp(store, 'k', { ...base, agent_id: 'agent-2', asks: true });
  t.notOk((await sessions.get('k'))?.stream_up, "another agent's read of the record marks nothing");
  await markInitialized(store, 'plain', { ...base });
  t.equal(await sessions.get('plain'), undefined, 'a client that cannot be asked costs no write');

  // the wait: ends when another replica marks the stream up, when the record goes, or at the bound
  const rec = (await sessions.get('k')) as SessionRecord;
  const w = streamElsewhere(store, 'k', rec, 5_000);
  t.not(w, false);
  const t0 = Date.now();
  setTimeout(() => void markStreamUp(store, 'k', rec), 60);
  t.equal(await w, true);
  t.ok(Date.now() - t0 < 2_000, 'ended by the mark, not the bound');
  await sessions.put('gone', { ...base, asks: true, initialized_at: new Date().toISOString() });
  const g = streamElsewhere(store, 'gone', (await sessions.get('gone')) as SessionRecord, 5_000);
  setTimeout(() => void sessions.delete('gone'), 40);
  const t1 = Date.now();
  t.equal(await g, true);
  t.ok(Date.now() - t1 < 2_000, 'ended when the session went');
  await sessions.put('never', { ...base, asks: true, initialized_at: new Date().toISOString() });
  const n = streamElsewhere(store, 'never', (await sessions.get('never')) as SessionRecord, 80);
  t.equal(await n, true, 'a GET that never comes: the wait ends with the expectation');
  t.equal(streamElsewhere(store, 'never', (await sessions.get('never')) as SessionRecord, 80), false, 'and is not waited for again');

  // many POSTs of one session waiting on one replica: one reader among them
  let reads = 0;
  const counting = {
    collection: <T>(name: string) => {
      const c = store.collection<T>(name);
      return { ...c, get: (k: string) => (reads++, c.get(k)) };
    },
  } as unknown as typeof store;
  await sessions.put('busy', { ...base, asks: true, initialized_at: new Date().toISOString() });
  const busy = (await sessions.get('busy')) as SessionRecord;
  const waits = Array.from({ length: 200 }, () => streamElsewhere(counting, 'busy', busy, 150));
  t.ok(waits.every((w) => w !== false));
  t.same(new Set(await Promise.all(waits)), new Set([true]));
  t.ok(reads <= 10, `200 waiting POSTs read the record ${reads} times (one reader every 20 ms for 150 ms)`);
});
