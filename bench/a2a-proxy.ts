import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@a2a-js/sdk/client';
import { LmdbStore } from '../core/store/lmdb.js';
import { Accounts, ApiKeys } from '../plugins/auth/index.js';
import { builtinPlugins } from '../sidecar/builtin.js';
import { data, sdkClient, userMessage } from '../test/helpers/a2a-peer.js';
import { startFlags, stop, until } from './http.js';
import { closedLoop, freePort, type LoadStats } from './load.js';
import { interleavedRounds, startServerProcess, summary } from './proxy-rounds.js';

/**
 * `npm run bench -- a2a-proxy`: an official-SDK client sending a correct three-line invoice
 * (`SendMessage`) to an official-SDK server, directly and through /a2a/peers/ledger, as a user
 * meets it. Three processes: the peer (bench/a2a-peer.ts), the sidecar as `proofgate start` runs
 * it (the node flags of `npm start`), and this one, the load generator. Through the sidecar every
 * message pays what it pays in production: the API key's HMAC and lookup, the sender binding (the
 * key speaks as `bench-buyer`, which a trust entry assigns to its organisation), the finance
 * guard, an ES256 verdict, the keep-alive pool to the peer, the strict read and review of the
 * peer's answer and the verdict on it. The rounds alternate slices of both sides (bench/proxy-rounds.ts).
 * Goal (issues 18, 39): the proxied hop keeps >= 50 % of direct throughput; the p50/p99 it adds are
 * reported. Options (env): BENCH_A2A_REQUESTS per round and side (default 3000),
 * BENCH_A2A_CONCURRENCY (default 32), BENCH_A2A_ROUNDS (default 3), BENCH_CPU_PROF (directory: the
 * sidecar writes a V8 CPU profile there when it stops). Nothing here asserts on time.
 */
const DIST = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(DIST, 'sidecar', 'cli.js');
const PEER = join(DIST, 'bench', 'a2a-peer.js');
const SENDER = 'bench-buyer';
const KEEP = new Set(['health', 'auth', 'a2a']);

export interface ProxyBenchOptions {
  requests?: number;
  concurrency?: number;
  rounds?: number;
}

const INVOICE = {
  claimed_total: '149.97',
  line_items: [
    { description: 'widget', amount: '19.99', quantity: 5 },
    { description: 'gadget', amount: '49.95', quantity: 1 },
    { description: 'shipping', amount: '0.07' },
  ],
};

function drive(client: Client, requests: number, concurrency: number, latencies?: number[]): Promise<LoadStats> {
  return closedLoop(async () => {
    await client.sendMessage({ message: userMessage([data(INVOICE)]) } as never);
    return true;
  }, { requests, concurrency, latencies });
}

/** one organisation on the enterprise tier with a key bound to the sender, then `proofgate start` */
async function startSidecar(root: string, peerUrl: string, connections: number): Promise<{ child: ChildProcess; url: string; key: string }> {
  const dataDir = join(root, 'data');
  const secrets = { jwt_secret_key: randomBytes(32).toString('hex'), api_key_lookup_secret: randomBytes(32).toString('hex'), audit_secret_key: randomBytes(32).toString('hex') };
  const store = new LmdbStore(dataDir);
  const user = await new Accounts(store).signup('bench@example.com', 'correct horse battery staple', 'bench');
  if (!user) throw new Error('bench tenant could not be created');
  await new Accounts(store).setTier(user.org_id, 'enterprise');
  const { key } = await new ApiKeys(store, secrets.api_key_lookup_secret).create({ orgId: user.org_id, userId: user.id, role: 'owner', name: 'bench', scopes: ['verify:read'], a2aSenders: [SENDER] });
  await store.close();
  const port = await freePort();
  const config = {
    data_dir: dataDir,
    log_level: 'ERROR',
    server: { host: '127.0.0.1', port },
    secrets,
    a2a: {
      deployment_id: 'bench',
      signing_key_pem: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      default_allow: true,
      // the binding is checked at every use: the organisation owns the sender id through this entry
      trusted_agents: [{ agent_id: SENDER, org_id: user.org_id }],
      max_requests_per_minute: 1_000_000_000,
      peers: { ledger: `${peerUrl}/rpc` },
      proxy: { connections },
    },
    plugins: { disabled: builtinPlugins.map((p) => p.name).filter((n) => !KEEP.has(n)), extra: [] },
  };
  const file = join(root, 'config.json');
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const child = spawn(process.execPath, [...prof, ...startFlags(), CLI, 'start', '--config', file], { stdio: ['ignore', 'ignore', 'inherit'], env: { PATH: process.env.PATH ?? '' } });
  return { child, url: `http://127.0.0.1:${port}`, key };
}

/** calls per side in one slice of a round */
const SLICE = 500;

export async function runA2AProxyBench(o: ProxyBenchOptions = {}): Promise<object> {
  const requests = o.requests ?? Number(process.env.BENCH_A2A_REQUESTS ?? 3000);
  const concurrency = o.concurrency ?? Number(process.env.BENCH_A2A_CONCURRENCY ?? 32);
  const rounds = o.rounds ?? Number(process.env.BENCH_A2A_ROUNDS ?? 3);
  const root = mkdtempSync(join(tmpdir(), 'proofgate-bench-a2a-proxy-'));
  const peer = await startServerProcess(PEER, 'the A2A peer');
  let sc: Awaited<ReturnType<typeof startSidecar>> | undefined;
  try {
    sc = await startSidecar(root, peer.url, concurrency);
    await until(`${sc.url}/readyz`, sc.child);
    const direct = await sdkClient(`${peer.url}/`, {});
    const proxied = await sdkClient(`${sc.url}/a2a/peers/ledger/`, { 'x-api-key': sc.key });
    // one refused message fails the run loudly rather than timing refusals
    const probe = await drive(proxied, 1, 1);
    if (probe.failed) throw new Error('the sidecar refused the bench message');
    // untimed: the JIT of all three processes and every keep-alive connection
    const warm = Math.max(concurrency, Math.round(requests / 4));
    await drive(direct, warm, concurrency);
    await drive(proxied, warm, concurrency);
    const runs = await interleavedRounds({
      label: 'a2a-proxy',
      requests,
      rounds,
      slice: SLICE,
      pids: { sidecar: sc.child.pid!, upstream: peer.child.pid! },
      direct: (n, latencies) => drive(direct, n, concurrency, latencies),
      proxied: (n, latencies) => drive(proxied, n, concurrency, latencies),
    });
    return {
      name: 'a2a_proxy',
      description: 'SDK client -> proofgate start (/a2a/peers/ledger: sender binding, finance guard, ES256 verdict, answer review) -> SDK server, vs SDK client -> SDK server; three processes, loopback, interleaved rounds',
      requests,
      concurrency,
      sidecar_node_flags: startFlags().join(' '),
      ...summary(runs),
      goal: 'proxied_over_direct >= 0.5 (median of the rounds)',
    };
  } finally {
    if (sc) await stop(sc.child);
    await stop(peer.child);
    rmSync(root, { recursive: true, force: true });
  }
}
