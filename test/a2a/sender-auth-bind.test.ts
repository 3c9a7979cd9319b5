import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { isLoopbackHost } from '../../core/http/loopback.js';
import { nodeCommand, serveChild } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 38, item 11: claim-only mode (`SVC_A2A_SENDER_AUTH=off`) lets any accepted credential have
 * verdicts issued in any sender's name; the docs allow it only for a sidecar on loopback. It used to
 * start anywhere with a warning; `proofgate start` now refuses a non-loopback bind with EX_CONFIG.
 */
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));

/** a directory holding the development config `proofgate init` writes (a2a enabled, with its key) */
function initialised(t: Test): { dir: string; config: string } {
  const dir = tempDir(t, 'pg-bind-');
  const config = join(dir, 'proofgate.config.json');
  const r = spawnSync(...nodeCommand([CLI, 'init', '--config', config]), { cwd: dir, encoding: 'utf8', env: cleanEnv });
  t.equal(r.status, 0, r.stderr);
  return { dir, config };
}

function env(config: string, host: string, senderAuth: string): NodeJS.ProcessEnv {
  return { ...cleanEnv, SVC_CONFIG: config, SVC_HOST: host, SVC_PORT: '0', SVC_A2A_SENDER_AUTH: senderAuth, SVC_LOG_LEVEL: 'ERROR' };
}

for (const host of ['0.0.0.0', '::']) {
  t.test(`sender_auth off on ${host}: exit 78 with one line on stderr`, async (t) => {
    const { dir, config } = initialised(t);
    const r = spawnSync(...nodeCommand([CLI, 'start']), { cwd: dir, encoding: 'utf8', env: env(config, host, 'off'), timeout: 30_000 });
    t.equal(r.status, 78, r.stderr);
    const lines = r.stderr.trim().split('\n');
    t.equal(lines.length, 1, r.stderr);
    t.match(lines[0], /^proofgate: cannot start: a2a\.sender_auth \(SVC_A2A_SENDER_AUTH\) is off, which is allowed only on a loopback bind/);
    t.match(lines[0], `server.host (SVC_HOST) is ${JSON.stringify(host)}`);
  });
}

/** starts the CLI, waits for "serving on", stops it with SIGTERM; the exit code of the stop */
async function serves(t: Test, e: NodeJS.ProcessEnv, cwd: string): Promise<{ url: string; stopped: number | null }> {
  const { url, stop } = await serveChild(t, ...nodeCommand([CLI, 'start']), { cwd, env: e });
  const r = await fetch(`${url}/healthz`);
  t.equal(r.status, 200);
  return { url, stopped: await stop() };
}

t.test('sender_auth off on 127.0.0.1 still starts', async (t) => {
  const { dir, config } = initialised(t);
  const { url, stopped } = await serves(t, env(config, '127.0.0.1', 'off'), dir);
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal(stopped, 0);
});

t.test('sender_auth on is not limited to loopback (refusal is for claim-only mode alone)', async (t) => {
  const { dir, config } = initialised(t);
  // 0.0.0.0 binds every interface; the test talks to it over loopback only
  const { stopped } = await serves(t, env(config, '0.0.0.0', 'on'), dir);
  t.equal(stopped, 0);
});

t.test('what counts as a loopback bind', async (t) => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) t.ok(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '', '10.0.0.1', '::ffff:10.0.0.1', 'localhost.', 'example.com', '128.0.0.1']) t.notOk(isLoopbackHost(h), h);
});
