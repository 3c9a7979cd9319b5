import t from 'tap';
import type { Plugin } from '../../core/types.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import mcp, { LISTING_COLLECTION, SESSION_COLLECTION } from '../../plugins/mcp/index.js';
import { McpExpiry } from '../../plugins/mcp/expiry.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { connectClient, startUpstream } from './fixtures.js';

/**
 * MCP sessions a client never ends: each initialize binds a session id in the store, and clients
 * often drop a session without DELETE. A session expires mcp.session_ttl_seconds after its
 * initialize (404, the answer MCP clients take as "initialize again"), and a sweep removes the
 * bindings and listings nobody asks for any more, so they do not pile up in the store.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp];
// long enough that a loaded machine completes the SDK's initialize handshake (two requests) inside
// it: at 1 s the session could expire between initialize and notifications/initialized
const SESSION_TTL_S = 4;

t.test('a session past its lifetime is 404, its records go, and a new session works', async (t) => {
  const up = await startUpstream();
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, config: { auth: { anonymous_rate_per_minute: 1000 }, mcp: { servers: { demo: up.url }, pin_on_first_use: true, session_ttl_seconds: SESSION_TTL_S } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'mcp-user' });
  const { client, transport } = await connectClient(`${s.url}/mcp/demo`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  const sid = transport.sessionId!;
  t.ok(sid, 'a session was initialized through the proxy');
  const sessions = s.kernel.app.store.collection(SESSION_COLLECTION);
  t.equal(await sessions.count(), 1, 'its binding is stored');

  const headers = { accept: 'application/json, text/event-stream', 'x-agent-token': agent.agent_token, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  const list = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
  let last = 0;
  let detail = '';
  await waitFor(
    async () => {
      const r = await s.request('POST', '/mcp/demo', { body: list, headers });
      last = r.status;
      detail = (r.body as { detail?: string } | undefined)?.detail ?? '';
      return r.status === 404;
    },
    // every half second: each poll is a request the organisation's plan counts (60 a minute)
    { what: 'the session to expire', timeoutMs: 30_000, everyMs: 500 },
  );
  t.equal(last, 404);
  t.match(detail, /expired/, 'the answer says why');
  t.equal(await sessions.count(), 0, 'the expired binding is gone');
  t.equal(await s.kernel.app.store.collection(LISTING_COLLECTION).count(), 0, 'and no listing of it is left');

  const again = await connectClient(`${s.url}/mcp/demo`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => again.client.close());
  t.not(again.transport.sessionId, sid, 'the client initializes a new session');
  t.ok((await again.client.listTools()).tools.length > 0, 'which works');
});

t.test('the sweep removes expired bindings and stale listings, page by page, and keeps the rest', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-mcp-expiry-'));
  t.teardown(() => store.close());
  let now = Date.parse('2026-06-01T00:00:00Z');
  const expiry = new McpExpiry(store, 3_600_000, () => now);
  const sessions = store.collection(SESSION_COLLECTION);
  const at = (ms: number) => new Date(ms).toISOString();
  // more than a page of each kind: 700 older than an hour, 400 within it, and two unreadable ones
  for (let i = 0; i < 1100; i++) {
    await sessions.put(`s${String(i).padStart(5, '0')}`, { server: 'demo', agent_id: 'a', org_id: 'o', created_at: at(now - (i < 700 ? 7_200_000 : 60_000)) });
  }
  await sessions.put('s-bad-time', { server: 'demo', agent_id: 'a', org_id: 'o', created_at: 'yesterday' });
  await sessions.put('s-no-time', { server: 'demo' });
  const listings = store.collection(LISTING_COLLECTION);
  await listings.put('l-old', { server: 'demo', listings: [{ started_at: now - 7_200_000, next: 'x', names: [], repeated: [] }] });
  await listings.put('l-mixed', { server: 'demo', listings: [{ started_at: now - 7_200_000 }, { started_at: now - 1000 }] });
  await listings.put('l-empty', { server: 'demo', listings: [] });

  t.equal(await expiry.sweep(), 702 + 2);
  t.equal(await sessions.count(), 400, 'the 400 within their lifetime stay');
  t.same((await listings.list()).map((e) => e.key), ['l-mixed'], 'a record with a listing inside its lifetime stays');
  t.equal(await expiry.sweep(), 0, 'a second sweep finds nothing');
  now += 3_600_000;
  t.equal(await expiry.sweep(), 401, 'an hour later the rest have expired too');
  t.notOk(expiry.expired(at(now)), 'a session initialized now is not expired');
  t.ok(expiry.expired(at(now - 3_600_001)), 'one a millisecond past its lifetime is');
});
