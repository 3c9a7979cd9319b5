import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import auth from '../plugins/auth/index.js';
import agents from '../plugins/agents/index.js';
import a2a from '../plugins/a2a/index.js';
import audit from '../plugins/audit/index.js';
import health from '../plugins/health/index.js';
import mcp from '../plugins/mcp/index.js';
import { tenant } from '../test/helpers/tenancy.js';
import { startServer } from '../test/helpers/server.js';
import { connectClient, startUpstream } from '../test/mcp/fixtures.js';
import { closedLoop, type LoadStats } from './load.js';

/**
 * MCP tools/call throughput, direct to an SDK server and through the sidecar, in the same run and
 * over loopback (the ratio is the figure; absolute numbers move a lot on a shared VM). Both sides use
 * the official SDK client, one session per concurrent loop, SSE answers. Through the sidecar each call
 * pays: agent-token HMAC and lookup, session check, pin lookups, the tool policy, an ES256 signature,
 * the activity-log write, and the SSE re-framing of the answer.
 */
export interface McpBenchOptions {
  requests?: number;
  concurrency?: number;
  warmup?: number;
}

/** one loop per client (each is its own MCP session) */
function drive(clients: Client[], requests: number): Promise<LoadStats> {
  return closedLoop(async (loop) => {
    const r = await clients[loop].callTool({ name: 'get_weather', arguments: { city: 'Lisbon' } });
    return !r.isError;
  }, { requests, concurrency: clients.length });
}

export async function runMcpProxyBench(o: McpBenchOptions = {}) {
  const requests = o.requests ?? Number(process.env.BENCH_MCP_REQUESTS ?? 2000);
  const concurrency = o.concurrency ?? 8;
  const warmup = o.warmup ?? 100;
  const up = await startUpstream();
  const s = await startServer({
    plugins: [health, auth, agents, a2a, mcp, audit],
    config: { auth: { anonymous_rate_per_minute: 1000 }, limits: { default_plan: 'unlimited' }, mcp: { servers: { bench: { url: up.url } }, pin_on_first_use: true } },
  });
  const clients: Client[] = [];
  try {
    const org = await tenant(s, ['verify:read', 'agent:write']);
    const reg = await s.request('POST', '/agents/register', { apiKey: org.key, body: { name: 'bench' } });
    const token = (reg.body as { agent_token: string }).agent_token;
    const direct: Client[] = [];
    const proxied: Client[] = [];
    for (let i = 0; i < concurrency; i++) {
      direct.push((await connectClient(up.url)).client);
      proxied.push((await connectClient(`${s.url}/mcp/bench`, { 'x-agent-token': token })).client);
    }
    clients.push(...direct, ...proxied);
    // the first listing pins the definitions (pin_on_first_use); every proxied session lists once
    for (const c of proxied) await c.listTools();
    await drive(direct, warmup);
    await drive(proxied, warmup);
    up.state.calls.length = 0;
    const d = await drive(direct, requests);
    up.state.calls.length = 0;
    const p = await drive(proxied, requests);
    up.state.calls.length = 0;
    return { requests, concurrency, direct: d, proxied: p, proxied_over_direct: Math.round((p.rps / d.rps) * 100) / 100 };
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await s.close();
    await up.close();
  }
}
