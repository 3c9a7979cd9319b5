import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@a2a-js/sdk/client';
import { createApp } from '../core/app.js';
import { type Config, type ConfigOverrides } from '../core/config.js';
import { loadServiceConfig } from '../sidecar/config.js';
import { builtinPlugins } from '../sidecar/builtin.js';
import { testAuthPlugin, TEST_API_KEY, TEST_SECRETS } from '../test/helpers/server.js';
import { data, sdkClient, startPeer, userMessage } from '../test/helpers/a2a-peer.js';
import { closedLoop, type LoadStats } from './load.js';

/**
 * `npm run bench -- a2a-proxy`: an official-SDK client sending a correct three-line invoice
 * (`SendMessage`) to an official-SDK server, directly and through the sidecar's
 * /a2a/peers/{receiver} (finance guard, ES256 verdict, keep-alive pool to the peer), in the same
 * run and process over loopback. Goal (issue 18): the proxied hop keeps ≥ 50 % of direct throughput
 * at c=32 and adds ≤ 2 ms p50. Nothing asserts on time; the figures are reported.
 */
export interface ProxyBenchOptions {
  requests?: number;
  concurrency?: number;
  warmup?: number;
}

const INVOICE = {
  claimed_total: '149.97',
  line_items: [
    { description: 'widget', amount: '19.99', quantity: 5 },
    { description: 'gadget', amount: '49.95', quantity: 1 },
    { description: 'shipping', amount: '0.07' },
  ],
};

function drive(client: Client, o: Required<ProxyBenchOptions>): Promise<LoadStats> {
  return closedLoop(async () => {
    await client.sendMessage({ message: userMessage([data(INVOICE)]) } as never);
    return true;
  }, o);
}

export async function runA2AProxyBench(options: ProxyBenchOptions = {}): Promise<object> {
  const o: Required<ProxyBenchOptions> = { requests: 3000, concurrency: 32, warmup: 300, ...options };
  const peer = await startPeer();
  const dataDir = mkdtempSync(join(tmpdir(), 'proofgate-bench-a2a-proxy-'));
  const keep = new Set(['health', 'a2a']);
  const config = loadServiceConfig({
    env: {},
    file: null,
    overrides: {
      log_level: 'SILENT',
      data_dir: dataDir,
      server: { port: 0, host: '127.0.0.1' },
      secrets: TEST_SECRETS,
      plugins: { disabled: builtinPlugins.map((p) => p.name).filter((n) => !keep.has(n)), extra: [] },
      a2a: {
        deployment_id: 'bench',
        signing_key_pem: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        default_allow: true,
        max_requests_per_minute: 1_000_000_000,
        peers: { ledger: `${peer.url}/rpc` },
        proxy: { connections: o.concurrency },
      },
    } as ConfigOverrides,
  });
  const kernel = await createApp({ config, plugins: [...builtinPlugins, testAuthPlugin(['verify:read'], 'org-bench', ['bench-buyer'])] });
  const { url } = await kernel.listen();
  try {
    const directClient = await sdkClient(`${peer.url}/`, {});
    const proxiedClient = await sdkClient(`${url}/a2a/peers/ledger/`, { 'x-api-key': TEST_API_KEY });
    // interleaved rounds, best of each: JIT warm-up and neighbours' load fall on both sides alike
    const rounds: Array<{ direct: LoadStats; proxied: LoadStats }> = [];
    for (let i = 0; i < 2; i++) rounds.push({ direct: await drive(directClient, o), proxied: await drive(proxiedClient, o) });
    const best = (k: 'direct' | 'proxied') => rounds.map((r) => r[k]).sort((a, b) => b.rps - a.rps)[0];
    const direct = best('direct');
    const proxied = best('proxied');
    return {
      name: 'a2a_proxy',
      description: 'SDK client -> sidecar /a2a/peers/ledger (finance guard, ES256 verdict) -> SDK server, vs SDK client -> SDK server; loopback, same process',
      concurrency: o.concurrency,
      rounds,
      direct,
      proxied,
      throughput_ratio: Math.round((proxied.rps / direct.rps) * 1000) / 1000,
      added_p50_ms: Math.round((proxied.p50_ms - direct.p50_ms) * 1000) / 1000,
      goal: 'throughput_ratio >= 0.5 and added_p50_ms <= 2',
    };
  } finally {
    await kernel.close();
    await peer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
