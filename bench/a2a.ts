import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createApp } from '../core/app.js';
import { type Config, type ConfigOverrides } from '../core/config.js';
import { loadServiceConfig } from '../sidecar/config.js';
import { builtinPlugins } from '../sidecar/builtin.js';
import { testAuthPlugin, TEST_API_KEY, TEST_SECRETS } from '../test/helpers/server.js';
import { closedLoop, type LoadStats } from './load.js';

/**
 * A2A gateway throughput against a raw node:http server, in one process run and over loopback:
 * the ratio is the number that matters (absolute figures move ±50% on this VM). The gateway runs the
 * real kernel with the health and a2a built-ins; authentication is the harness's API-key stand-in
 * (one string compare), so the figure is the gateway's own cost: routing, body cap, ajv, trust
 * boundary, finance_guard, RFC 8785 hash and the ES256 signature.
 */
export interface A2ABenchOptions {
  requests?: number;
  concurrency?: number;
  warmup?: number;
}

const MESSAGE = JSON.stringify({
  sender_agent_id: 'bench-buyer',
  receiver_agent_id: 'bench-seller',
  payload_type: 'financial_transaction',
  payload: {
    data: {
      claimed_total: '149.97',
      line_items: [
        { description: 'widget', amount: '19.99', quantity: 5 },
        { description: 'gadget', amount: '49.95', quantity: 1 },
        { description: 'shipping', amount: '0.07' },
      ],
    },
  },
  timestamp: '2026-11-23T01:00:00Z',
});

/** Drives `requests` requests through `concurrency` loops sharing one keep-alive pool. */
async function drive(
  url: string,
  opts: Required<A2ABenchOptions>,
  req: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string },
  ok: (status: number, body: any) => boolean,
): Promise<LoadStats> {
  const pool = new Pool(url, { connections: opts.concurrency, pipelining: 1 });
  const once = async (): Promise<boolean> => {
    const res = await pool.request({ method: req.method, path: req.path, headers: req.headers, body: req.body });
    return ok(res.statusCode, (await res.body.json()) as unknown);
  };
  try {
    return await closedLoop(once, opts);
  } finally {
    await pool.close();
  }
}

async function rawServer(): Promise<{ server: Server; url: string }> {
  const body = JSON.stringify({ status: 'forwarded', reason: null, engine_used: 'none' });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function runA2ABench(options: A2ABenchOptions = {}): Promise<object> {
  const opts: Required<A2ABenchOptions> = { requests: 5000, concurrency: 50, warmup: 500, ...options };
  const dataDir = mkdtempSync(join(tmpdir(), 'proofgate-bench-a2a-'));
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
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
      a2a: { deployment_id: 'bench', signing_key_pem: pem, default_allow: true, max_requests_per_minute: 1_000_000_000 },
    } as ConfigOverrides,
  });
  const kernel = await createApp({ config, plugins: [...builtinPlugins, testAuthPlugin(['verify:read'], 'org-bench', ['bench-buyer'])] });
  const { url } = await kernel.listen();
  const raw = await rawServer();
  try {
    const a2a = await drive(
      url,
      opts,
      { method: 'POST', path: '/a2a/intercept', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: MESSAGE },
      (status, body) => status === 200 && body?.status === 'forwarded' && typeof body.attestation_jwt === 'string',
    );
    const rawStats = await drive(raw.url, opts, { method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: MESSAGE }, (s) => s === 200);
    return {
      name: 'a2a_intercept',
      description: 'POST /a2a/intercept, forwarded finance message, ES256-signed verdict, vs raw node:http fixed JSON; loopback, same process',
      requests: opts.requests,
      concurrency: opts.concurrency,
      intercepts_per_second: a2a.rps,
      intercept_p50_ms: a2a.p50_ms,
      intercept_p99_ms: a2a.p99_ms,
      intercept_failed: a2a.failed,
      raw_http_rps: rawStats.rps,
      raw_http_p50_ms: rawStats.p50_ms,
      raw_http_p99_ms: rawStats.p99_ms,
      ratio_vs_raw_http: Math.round((a2a.rps / rawStats.rps) * 1000) / 1000,
    };
  } finally {
    await new Promise((r) => raw.server.close(r));
    await kernel.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `node dist/bench/a2a.js` prints the result on its own
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  runA2ABench().then((r) => console.log(JSON.stringify(r, null, 2)));
}
