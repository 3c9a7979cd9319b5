import t from 'tap';
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbStore } from '../../core/store/lmdb.js';
import { CLI } from '../helpers/replica.js';
import { killProcess } from '../helpers/redis.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { sendRequest } from '../helpers/server.js';

/**
 * A sidecar whose disk fills up, end to end: the server runs in a child process under a file-size
 * limit set just above its data file, which the test filled beforehand. Verifications (each writes
 * an audit entry) must be refused 507 store_full, never VERIFIED without their entry, while reads
 * and /healthz go on; SIGTERM stops it in bounded time. (That writes fit again once space is
 * freed is store-full.test.ts's: a file-size limit cannot be lifted from a running process.)
 */
const dir = tempDir(t, 'pg-store-full-http-');
const data = join(dir, 'data');
writeFileSync(join(dir, 'config.json'), '{}');
const filler = new LmdbStore(data);
for (let i = 0; i < 64; i++) await filler.collection('filler').put(`f${i}`, 'x'.repeat(16_000));
await filler.close();
// room for sign-up and a key, then a few dozen audit entries
const limit = Math.ceil((statSync(join(data, 'data.mdb')).size + 64 * 1024) / 512);

const [node, args] = nodeCommand([CLI, 'start']);
const child = spawn('/bin/sh', ['-c', `ulimit -f ${limit} && exec "$0" "$@"`, node, ...args], {
  cwd: dir,
  env: {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP'))),
    SVC_CONFIG: join(dir, 'config.json'),
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_DATA_DIR: data,
    SVC_LOG_LEVEL: 'INFO',
    SVC_WORKER_THREADS: '1',
    SVC_PLUGINS_DISABLED: 'a2a,logic,code,sql,image,consensus,rag,process,stats,fact,natural-language',
    SVC_JWT_SECRET_KEY: 'full-jwt-secret-0123456789abcdef',
    SVC_API_KEY_LOOKUP_SECRET: 'full-lookup-secret-0123456789abcdef',
    SVC_AUDIT_SECRET_KEY: 'full-audit-secret-0123456789abcdef',
    // the free plan's 60 a minute would answer 429 long before the disk fills
    SVC_DEFAULT_PLAN: 'unlimited',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stdout = '';
let stderr = '';
child.stdout!.on('data', (d) => (stdout += d));
child.stderr!.on('data', (d) => (stderr += d));
t.teardown(() => killProcess(child));
const url = await waitFor(() => /serving on (http:\/\/\S+)/.exec(stderr)?.[1] ?? (child.exitCode !== null ? Promise.reject(new Error(stderr)) : null), { what: 'the sidecar to serve', timeoutMs: 60_000 });

// the suite's one HTTP exchange helper: JSON in, the answer parsed when it is JSON
const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => sendRequest(url, method, path, { body, headers });
const logs = () => stdout.split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return { raw: l }; } });

const signup = await req('POST', '/auth/signup', { email: 'full@example.com', password: 'correct horse battery', organization_name: 'Full disk org' });
// no assertion at the top level: tap would end its root test there, and tear the server down
if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${signup.text}`);
const bearer = { authorization: `Bearer ${signup.body.access_token}` };
const key = await req('POST', '/auth/api-keys', { name: 'k', scopes: ['verify:read'] }, bearer);
if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
let n = 0;
const verify = () => req('POST', '/verify/math', { expression: `${n}+1=${++n}` }, { 'x-api-key': key.body.key });

t.test('a verification the disk cannot take is 507 store_full, never VERIFIED without its entry', async (t) => {
  const seen: Record<string, number> = {};
  let refusal: Awaited<ReturnType<typeof verify>> | null = null;
  for (let i = 0; i < 2000 && !refusal; i++) {
    const r = await verify();
    seen[`${r.status} ${r.body?.code ?? r.body?.status}`] = (seen[`${r.status} ${r.body?.code ?? r.body?.status}`] ?? 0) + 1;
    if (r.status !== 200) refusal = r;
    else t.ok(r.body.status === 'VERIFIED' || r.body.status === 'UNVERIFIABLE', 'an answered verification is a verdict');
  }
  t.ok(refusal, `the limit was reached (${JSON.stringify(seen)})`);
  t.equal(refusal?.status, 507, 'the refusal is 507', { body: refusal?.text });
  t.match(refusal?.body, { code: 'store_full', type: 'urn:proofgate:problem:store_full', status: 507, instance: '/verify/math' }, 'a store_full problem');
  t.notOk(refusal?.body?.status === 'VERIFIED', 'no verdict is in the refusal');
  t.equal(Object.keys(seen).filter((k) => !/^(200 |507 store_full)/.test(k)).length, 0, `every answer is a verdict or store_full: ${JSON.stringify(seen)}`);
  // a few more, so the episode has more than one refusal to log once
  for (let i = 0; i < 5; i++) await verify();
  t.equal(logs().filter((l) => l.event === 'store.full').length, 1, 'the full disk is logged once per episode');
  t.equal(logs().filter((l) => l.msg === 'unhandled promise rejection' || l.msg === 'request failed').length, 0, 'and not once per request');
});

t.test('the full server stays up: /healthz, reads', async (t) => {
  t.equal((await req('GET', '/healthz')).status, 200, '/healthz answers');
  const keys = await req('GET', '/auth/api-keys', undefined, bearer);
  t.equal(keys.status, 200, 'the key list is read', { body: keys.text });
  t.equal(child.exitCode, null, 'the process is running');
});

t.test('SIGTERM on a full disk stops the server within its grace period', async (t) => {
  // the last write before the signal is refused: lmdb-js's close then waited for ever
  let full = false;
  for (let i = 0; i < 200 && !full; i++) full = (await verify()).status === 507;
  t.ok(full, 'the last verification before the signal was refused');
  const started = Date.now();
  child.kill('SIGTERM');
  // polled, not raced against a timer: a losing wait kept polling, and the process alive, for its 20 s
  const { code } = await waitFor(() => (child.exitCode !== null || child.signalCode !== null ? { code: child.exitCode } : null), { what: 'the sidecar to exit', timeoutMs: 20_000 });
  t.equal(code, 0, 'it exits 0', { stderr: stderr.slice(-1000) });
  t.ok(Date.now() - started < 20_000, `it stopped in ${Date.now() - started} ms`);
  t.ok(logs().some((l) => l.msg === 'proofgate stopped'), 'the kernel finished its close');
  t.notOk(logs().some((l) => l.event === 'store.close_incomplete'), 'the store closed, it did not have to give up');
});
