import t, { type Test } from 'tap';
import type { Plugin } from '../../core/types.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { startServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { bodyAnswer, FOREIGN_HOSTS, FOREIGN_ORIGINS, loopbackHosts, rawRequest, startHostileUpstream } from '../helpers/hostile-wire.js';
import { connectClient } from './fixtures.js';

/**
 * Issue 38, item 10: the proxy answers only requests whose Host (and Origin, when there is one) it
 * serves; a DNS-rebinding page's request is 403 and never reaches the upstream, whose own check
 * would only ever see the Host proofgate writes.
 */
const PLUGINS: Plugin[] = [health, auth, agents, a2a, mcp, audit];

async function setup(t: Test, env: NodeJS.ProcessEnv = {}) {
  const up = await startHostileUpstream((r) => {
    const m = r.json;
    if (m?.id === undefined) return (res) => void res.writeHead(202).end();
    return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'h', version: '1' } } : {} }), {
      type: 'application/json',
    });
  });
  t.teardown(() => up.close());
  const s = await startServer({ plugins: PLUGINS, env, config: { auth: { anonymous_rate_per_minute: 100_000 }, limits: { plans: { free: { per_minute: null, per_day: null } } }, mcp: { servers: { h: up.url } } } });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'mcp-user' });
  const port = Number(new URL(s.url).port);
  const post = (headers: Record<string, string>, method = 'POST') =>
    rawRequest(`${s.url}/mcp/h`, {
      method,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'x-agent-token': agent.agent_token, ...headers },
      body: method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) : undefined,
    });
  return { s, up, agent, port, post };
}

t.test('a foreign Host is 403 and never forwarded; every spelling of the listener passes', async (t) => {
  const { up, port, post } = await setup(t);
  for (const host of FOREIGN_HOSTS) {
    for (const method of ['POST', 'DELETE']) {
      const r = await post({ host }, method);
      t.equal(r.status, 403, `${method} Host ${JSON.stringify(host)}`);
      t.equal(r.body?.code, 'mcp_host_not_allowed');
      t.match(r.body?.detail, /allowed_hosts/, 'the body says what to configure');
    }
  }
  t.equal(up.received.length, 0, 'the upstream never saw one of them');
  for (const host of loopbackHosts(port)) {
    const r = await post({ host });
    t.equal(r.status, 200, `Host ${host}: ${r.text.slice(0, 200)}`);
  }
  t.equal(up.received.length, loopbackHosts(port).length, 'those were forwarded');
});

t.test('a foreign Origin is 403 and never forwarded; no Origin, or the listener’s own, passes', async (t) => {
  const { s, up, agent, port, post } = await setup(t);
  for (const origin of FOREIGN_ORIGINS) {
    const r = await post({ host: `127.0.0.1:${port}`, origin });
    t.equal(r.status, 403, `Origin ${origin}`);
    t.equal(r.body?.code, 'mcp_origin_not_allowed');
    t.match(r.body?.detail, /allowed_origins/);
  }
  t.equal(up.received.length, 0, 'the upstream never saw one of them');
  const { client } = await connectClient(`${s.url}/mcp/h`, { 'x-agent-token': agent.agent_token });
  t.teardown(() => client.close());
  t.same(await client.ping(), {}, 'the SDK client (no Origin) is served');
  const before = up.received.length;
  const own = await rawRequest(`${s.url}/mcp/h`, {
    method: 'POST',
    headers: { host: `localhost:${port}`, origin: `http://localhost:${port}`, accept: 'application/json', 'content-type': 'application/json', 'x-agent-token': agent.agent_token },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
  });
  t.equal(own.status, 200, own.text);
  t.same(own.body, { jsonrpc: '2.0', id: 9, result: {} });
  t.equal(up.received.length, before + 1, 'forwarded');
  const sdk = await connectClient(`${s.url}/mcp/h`, { 'x-agent-token': agent.agent_token, origin: 'http://evil.example.com' }).then(
    () => null,
    (e: Error) => e,
  );
  t.match(sdk?.message, /403/, 'an SDK client sending a foreign Origin is refused at initialize');
});

t.test('SVC_MCP_ALLOWED_HOSTS / SVC_MCP_ALLOWED_ORIGINS replace the defaults; a malformed entry stops start-up', async (t) => {
  const { up, post } = await setup(t, { SVC_MCP_ALLOWED_HOSTS: 'mcp.internal,gw.example:8443', SVC_MCP_ALLOWED_ORIGINS: 'https://app.example' });
  t.equal((await post({ host: 'MCP.Internal.' })).status, 200, 'a configured name, any port, any spelling');
  t.equal((await post({ host: 'gw.example:8443', origin: 'https://app.example:443' })).status, 200, 'a configured origin');
  t.equal((await post({ host: 'gw.example:443' })).body?.code, 'mcp_host_not_allowed', 'another port of a host:port entry');
  t.equal((await post({})).body?.code, 'mcp_host_not_allowed', 'loopback is no longer a default');
  t.equal((await post({ host: 'mcp.internal', origin: 'https://mcp.internal' })).body?.code, 'mcp_origin_not_allowed', 'the configured origins replace the default');
  t.equal(up.received.length, 2, 'only the two allowed requests were forwarded');
  await t.rejects(startServer({ plugins: PLUGINS, env: { SVC_MCP_ALLOWED_HOSTS: 'https://x.example/' } }), /mcp\.allowed_hosts/);
  await t.rejects(startServer({ plugins: PLUGINS, env: { SVC_MCP_ALLOWED_ORIGINS: 'app.example' } }), /mcp\.allowed_origins/);
});
