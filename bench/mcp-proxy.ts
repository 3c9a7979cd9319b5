import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LmdbStore } from '../core/store/lmdb.js';
import { Accounts, ApiKeys } from '../plugins/auth/index.js';
import { connectClient } from '../test/mcp/fixtures.js';
import { ENGINE_PLUGINS, startFlags, stop, until } from './http.js';
import { closedLoop, freePort, type LoadStats } from './load.js';
import { interleavedRounds, startServerProcess, summary } from './proxy-rounds.js';

/**
 * `npm run bench -- mcp-proxy`: MCP `tools/call` throughput as a user meets it. Three processes:
 * the tests' official-SDK MCP server (bench/mcp-upstream.ts), the sidecar as `proofgate start`
 * runs it (the node flags of `npm start`), and this one, the load generator: the official SDK
 * client, one session per concurrent loop, SSE answers. The same clients and the same call go
 * directly to the server and through /mcp/bench in the same run, in rounds of alternating slices
 * (200 calls a side, so that load from elsewhere on the machine falls on both sides alike); each
 * round's ratio (proxied rps / direct rps) and added p50/p99 are reported, and their medians.
 * Through the sidecar every call pays what it pays in production: agent-token HMAC and lookup,
 * session check, pin lookups, the tool policy, an ES256 verdict, the activity-log write, the
 * strict parse and review of the answer and its SSE re-framing. Nothing is cached across calls.
 * Options (env): BENCH_MCP_REQUESTS per round and side (default 2000), BENCH_MCP_CONCURRENCY
 * (default 8), BENCH_MCP_ROUNDS (default 3), BENCH_CPU_PROF (directory: the sidecar writes a V8
 * CPU profile there when it stops). Nothing here asserts on time.
 */
const DIST = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(DIST, 'sidecar', 'cli.js');
const UPSTREAM = join(DIST, 'bench', 'mcp-upstream.js');
/** what the MCP relay needs: tenants and keys, agent tokens, the verdict key (a2a), the activity log */
const KEEP = new Set(['health', 'auth', 'agents', 'a2a', 'mcp', 'audit']);
const DISABLED = [...ENGINE_PLUGINS, 'providers', 'batch', 'attestation', 'verification-context', 'badges', 'ops', 'console'].filter((p) => !KEEP.has(p));

export interface McpBenchOptions {
  requests?: number;
  concurrency?: number;
  rounds?: number;
}

function drive(clients: Client[], requests: number, latencies?: number[]): Promise<LoadStats> {
  return closedLoop(async (loop) => {
    const r = await clients[loop].callTool({ name: 'get_weather', arguments: { city: 'Lisbon' } });
    return !r.isError;
  }, { requests, concurrency: clients.length, latencies });
}

/** one organisation on the enterprise tier (no plan limit) with an agent:write key, then `proofgate start` */
async function startSidecar(root: string, upstreamUrl: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  const dataDir = join(root, 'data');
  const secrets = { jwt_secret_key: randomBytes(32).toString('hex'), api_key_lookup_secret: randomBytes(32).toString('hex'), audit_secret_key: randomBytes(32).toString('hex') };
  const store = new LmdbStore(dataDir);
  const user = await new Accounts(store).signup('bench@example.com', 'correct horse battery staple', 'bench');
  if (!user) throw new Error('bench tenant could not be created');
  await new Accounts(store).setTier(user.org_id, 'enterprise');
  const { key } = await new ApiKeys(store, secrets.api_key_lookup_secret).create({ orgId: user.org_id, userId: user.id, role: 'owner', name: 'bench', scopes: ['verify:read', 'agent:write'] });
  await store.close();
  const port = await freePort();
  const config = {
    data_dir: dataDir,
    log_level: 'ERROR',
    server: { host: '127.0.0.1', port },
    secrets,
    a2a: { deployment_id: 'bench', signing_key_pem: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    mcp: { servers: { bench: { url: upstreamUrl } }, pin_on_first_use: true },
    plugins: { disabled: DISABLED, extra: [] },
  };
  const file = join(root, 'config.json');
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const child = spawn(process.execPath, [...prof, ...startFlags(), CLI, 'start', '--config', file], { stdio: ['ignore', 'ignore', 'inherit'], env: { PATH: process.env.PATH ?? '' } });
  return { child, url: `http://127.0.0.1:${port}`, key };
}

async function registerAgent(url: string, key: string): Promise<string> {
  const r = await fetch(`${url}/agents/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ name: 'bench' }) });
  if (r.status !== 201) throw new Error(`agent registration: HTTP ${r.status} ${await r.text()}`);
  return ((await r.json()) as { agent_token: string }).agent_token;
}

/** calls per side in one slice of a round */
const SLICE = 200;

export async function runMcpProxyBench(o: McpBenchOptions = {}) {
  const requests = o.requests ?? Number(process.env.BENCH_MCP_REQUESTS ?? 2000);
  const concurrency = o.concurrency ?? Number(process.env.BENCH_MCP_CONCURRENCY ?? 8);
  const rounds = o.rounds ?? Number(process.env.BENCH_MCP_ROUNDS ?? 3);
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-mcp-'));
  const up = await startServerProcess(UPSTREAM, 'the MCP server');
  const clients: Client[] = [];
  let sc: Awaited<ReturnType<typeof startSidecar>> | undefined;
  try {
    sc = await startSidecar(root, up.url);
    await until(`${sc.url}/readyz`, sc.child);
    const token = await registerAgent(sc.url, sc.key);
    const direct: Client[] = [];
    const proxied: Client[] = [];
    for (let i = 0; i < concurrency; i++) {
      direct.push((await connectClient(up.url)).client);
      proxied.push((await connectClient(`${sc.url}/mcp/bench`, { 'x-agent-token': token })).client);
    }
    clients.push(...direct, ...proxied);
    // the first listing pins the definitions (pin_on_first_use); every proxied session lists once
    for (const c of proxied) await c.listTools();
    // untimed: the JIT of all three processes and every keep-alive connection
    const warm = Math.max(concurrency, Math.round(requests / 4));
    await drive(direct, warm);
    await drive(proxied, warm);
    const runs = await interleavedRounds({
      label: 'mcp-proxy',
      requests,
      rounds,
      slice: SLICE,
      pids: { sidecar: sc.child.pid!, upstream: up.child.pid! },
      direct: (n, latencies) => drive(direct, n, latencies),
      proxied: (n, latencies) => drive(proxied, n, latencies),
    });
    return {
      name: 'mcp_proxy',
      description: 'SDK client -> proofgate start (/mcp/bench) -> SDK server, vs SDK client -> SDK server; three processes, loopback, interleaved rounds',
      requests,
      concurrency,
      sidecar_node_flags: startFlags().join(' '),
      ...summary(runs),
      goal: 'proxied_over_direct >= 0.5 (median of the rounds)',
    };
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    if (sc) await stop(sc.child);
    await stop(up.child);
    rmSync(root, { recursive: true, force: true });
  }
}
