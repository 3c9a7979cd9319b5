import t from 'tap';
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const root = tempDir(t, 'proofgate-verify-http-');
writeFileSync(join(root, 'safe.py'), 'def add(a, b):\n    return a + b\n');

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = { ...process.env };
    for (const k of ['PROOFGATE_API_KEY', 'PROOFGATE_URL', 'PROOFGATE_ALLOW_INSECURE_HTTP', 'GITHUB_OUTPUT']) delete clean[k];
    execFile(...nodeCommand([CLI, ...args]), { env: { ...clean, ...env }, cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** a fake proofgate that records what reaches it and admits everything */
async function fakeService() {
  const seen: Array<{ headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'VERIFIED', admission: 'ADMIT', agent_message: 'ok', proof_ref: 'sha256:' + '0'.repeat(64), vulnerabilities: [] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return { seen, port: (server.address() as AddressInfo).port };
}

t.test('a key is not sent over plain http to a host that is not loopback, unless allowed', async (t) => {
  const svc = await fakeService();
  const key = { PROOFGATE_API_KEY: 'svc_live_' + 'k'.repeat(43) };
  // 0.0.0.0 reaches this machine's listener on Linux, yet is not a loopback address
  const url = `http://0.0.0.0:${svc.port}`;
  const refused = await run(['verify', 'code', '--url', url, 'safe.py'], key);
  t.equal(refused.code, 2, 'refused before sending: a usage/service error, not a denial');
  t.match(refused.stderr, /refusing to send a credential over plain http:\/\/ to 0\.0\.0\.0:\d+: .*--allow-insecure-http \(PROOFGATE_ALLOW_INSECURE_HTTP=1\); nothing was sent/);
  const fromEnv = await run(['verify', 'code', 'safe.py'], { ...key, PROOFGATE_URL: url });
  t.equal(fromEnv.code, 2, 'PROOFGATE_URL is held to the same rule');
  t.equal(svc.seen.length, 0, 'nothing reached the service');

  const flag = await run(['verify', 'code', '--url', url, '--allow-insecure-http', 'safe.py'], key);
  t.equal(flag.code, 0, flag.stderr);
  const env = await run(['verify', 'code', '--url', url, 'safe.py'], { ...key, PROOFGATE_ALLOW_INSECURE_HTTP: '1' });
  t.equal(env.code, 0, env.stderr);
  t.same(svc.seen.map((s) => s.headers['x-api-key']), [key.PROOFGATE_API_KEY, key.PROOFGATE_API_KEY], 'sent when the caller opted in');
  const typo = await run(['verify', 'code', '--url', url, 'safe.py'], { ...key, PROOFGATE_ALLOW_INSECURE_HTTP: 'yes please' });
  t.equal(typo.code, 2, 'an unrecognised value is a usage error, not a yes');

  // a sidecar on loopback needs nothing
  const loop = await run(['verify', 'code', '--url', `http://127.0.0.1:${svc.port}`, 'safe.py'], key);
  t.equal(loop.code, 0, loop.stderr);
  t.equal(svc.seen.length, 3);
});

t.test('an answer past the client cap (64 MiB) ends the run with an error, not a CLI buffering without end', async (t) => {
  let sent = 0;
  const server = createServer((req, res) => {
    req.resume();
    // chunked and endless: it stops when the CLI goes away (or at 1 GiB, so a failing run ends)
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let open = true;
    res.once('close', () => (open = false));
    const pump = () => {
      while (open && sent < 1024 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const r = await run(['verify', 'code', '--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'safe.py'], { PROOFGATE_API_KEY: 'svc_live_' + 'k'.repeat(43) });
  t.equal(r.code, 2, 'a service error: nothing was verified');
  t.match(r.stderr, /the answer to POST \/verify\/code is larger than maxResponseBytes \(67108864 bytes\)/);
  t.ok(sent < 256 * 1024 * 1024, `the read stopped near the cap (${sent} bytes written)`);
});
