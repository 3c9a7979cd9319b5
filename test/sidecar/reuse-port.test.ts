import t from 'tap';
import { request as httpRequest } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ownRedis } from '../helpers/redis.js';
import { startReplica } from '../helpers/replica.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `server.reuse_port`: several proofgate processes on one host bind one port (SO_REUSEPORT) and the
 * kernel spreads connections among them. They share the LMDB data directory (LMDB's lock is
 * cross-process) and must share their rate limits, which start-up requires.
 */
const pem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** one request on a connection of its own, so that the kernel picks a listener for each */
function fresh(port: number, method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, agent: false, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(o.headers ?? {}) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

t.test('a process sharing its port without a shared rate limiter does not start', async (t) => {
  const err = await startReplica({ SVC_SERVER_REUSE_PORT: 'true', SVC_JWT_SECRET_KEY: 'j'.repeat(32), SVC_API_KEY_LOOKUP_SECRET: 'l'.repeat(32) }).then(
    (r) => (r.stop(), null),
    (e: Error) => e,
  );
  t.ok(err, 'refused');
  t.match(err!.message, /exited 78/);
  t.match(err!.message, /server\.reuse_port.*SVC_RATE_LIMIT_REDIS_URL/);
});

t.test('two processes on one port and one data directory serve one service, and count one plan limit', async (t) => {
  const redis = await ownRedis(t);
  const dataDir = mkdtempSync(join(tmpdir(), 'pg-reuse-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const env = {
    SVC_SERVER_REUSE_PORT: 'true',
    SVC_DATA_DIR: dataDir,
    SVC_JWT_SECRET_KEY: 'reuse-jwt-secret-0123456789abcdef',
    SVC_API_KEY_LOOKUP_SECRET: 'reuse-lookup-secret-0123456789abcdef',
    SVC_AUDIT_SECRET_KEY: 'reuse-audit-secret-0123456789abcdef',
    SVC_RATE_LIMIT_REDIS_URL: redis.url,
    SVC_ATTESTATION_KEY_CONTINUITY_POLICY: 'persistent',
    SVC_ATTESTATION_SIGNING_KEY_PEM: pem(),
    SVC_A2A_DEPLOYMENT_ID: 'reuse-test',
    SVC_A2A_SIGNING_KEY_PEM: pem(),
    SVC_AUTH_RATE_LIMIT_PER_MINUTE: '100',
  };
  // each process also gets a metrics listener of its own: that is how the test sees who served
  const [mA, mB] = [await freePort(), await freePort()];
  const A = await startReplica({ ...env, SVC_METRICS_PORT: String(mA) }, port);
  t.teardown(() => A.stop());
  const B = await startReplica({ ...env, SVC_METRICS_PORT: String(mB) }, port);
  t.teardown(() => B.stop());
  // one ready answer may come from the process that is ready while the other still warms up (its
  // requests are 503): both are ready when twenty fresh connections in a row, spread by the kernel, say so
  await waitFor(async () => (await Promise.all(Array.from({ length: 20 }, () => fresh(port, 'GET', '/readyz')))).every((r) => r.status === 200), { what: 'both processes to be ready', timeoutMs: 60_000, everyMs: 50 });

  const signup = await fresh(port, 'POST', '/auth/signup', { body: { email: `reuse-${process.pid}@example.com`, password: 'correct horse battery', organization_name: 'Reuse org' } });
  t.equal(signup.status, 201, 'signed up through the shared port');
  const key = await fresh(port, 'POST', '/auth/api-keys', { body: { name: 'k', scopes: ['verify:read'] }, headers: { authorization: `Bearer ${signup.body.access_token}` } });
  t.equal(key.status, 201, 'a key made on whichever process took the connection');

  // the free plan allows 60 per (epoch-aligned) minute: start with enough of the minute left
  await waitFor(() => 60_000 - (Date.now() % 60_000) >= 15_000, { what: 'a minute with 15 s left', timeoutMs: 20_000, everyMs: 100 });
  const minute = Math.floor(Date.now() / 60_000);
  const res: Array<{ status: number; body: any }> = [];
  for (let i = 0; i < 70; i += 10) {
    res.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => fresh(port, 'POST', '/verify/math', { body: { expression: `${i + j}+1=${i + j + 1}` }, headers: { 'x-api-key': key.body.key } })))));
  }
  t.equal(Math.floor(Date.now() / 60_000), minute, 'all requests fell in one window');
  t.equal(res.filter((r) => r.status === 200 && r.body.status === 'VERIFIED').length, 60, 'exactly the plan limit is allowed across both processes');
  t.equal(res.filter((r) => r.status === 429).length, 10);

  const served = async (metricsPort: number) => {
    const text = String((await fresh(metricsPort, 'GET', '/metrics')).body);
    return [...text.matchAll(/^svc_http_requests_total\{[^}]*route="\/verify\/math"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const [a, b] = [await served(mA), await served(mB)];
  t.equal(a + b, 70, `every request was answered by one of the two (${a} + ${b})`);
  t.ok(a > 0 && b > 0, 'the kernel spread the connections over both processes');

  await A.stop();
  const after = await fresh(port, 'POST', '/verify/math', { body: { expression: '2+2=4' }, headers: { 'x-api-key': key.body.key } });
  t.equal(after.status, 429, 'the other process goes on serving the port, with the same window spent');
});
