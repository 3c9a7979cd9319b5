import t from 'tap';
import { spawnSync } from 'node:child_process';
import { PgStore } from '../../core/store/pg.js';
import { AUDIT_CODECS, AUDIT_COLLECTION, walkChains, type AuditEntry } from '../../plugins/audit/index.js';
import { testDatabase, type TestDatabase } from '../helpers/pg.js';
import { freePort, ownRedis } from '../helpers/redis.js';
import { CLI, sharedModeEnv, startReplica, type Replica } from '../helpers/replica.js';
import { waitFor } from '../helpers/wait.js';
import { pgRelay } from '../helpers/pg-relay.js';
import { nodeCommand } from '../helpers/child.js';

/**
 * Shared mode end to end: two sidecar processes (replicas A and B) on one PostgreSQL database and
 * one Redis, configured only through the environment, as Kubernetes would run them.
 */
const db = await testDatabase(t);
if (db) await run(db);

async function run(db: TestDatabase) {
  const redis = await ownRedis(t);
  const shared = sharedModeEnv('shared');
  const secrets = shared.secrets;
  const env = {
    ...shared.env,
    SVC_STORE_URL: db.url,
    SVC_RATE_LIMIT_REDIS_URL: redis.url,
    // every sign-up of this file comes from 127.0.0.1: room for them all within one minute
    SVC_AUTH_RATE_LIMIT_PER_MINUTE: '100',
  };
  // started together: their migrations race for the advisory lock
  const [A, B] = await Promise.all([startReplica(env), startReplica(env)]);
  t.teardown(async () => {
    await A.stop();
    await B.stop();
  });
  for (const r of [A, B]) await waitFor(async () => (await r.request('GET', '/readyz')).status === 200, { what: 'a replica to be ready', timeoutMs: 60_000, everyMs: 50 });

  let n = 0;
  const signup = async (r: Replica) => {
    const res = await r.request('POST', '/auth/signup', {
      body: { email: `u${process.pid}-${n}@example.com`, password: 'correct horse battery', organization_name: `Shared org ${process.pid} ${n++}` },
    });
    if (res.status !== 201) throw new Error(`signup: ${res.status} ${res.text}`);
    return { token: res.body.access_token as string, orgId: res.body.user.org_id as string };
  };
  const createKey = async (r: Replica, token: string) => {
    const res = await r.request('POST', '/auth/api-keys', {
      body: { name: 'k', scopes: ['verify:read', 'attestation:read'] },
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
    return res.body as { id: string; key: string };
  };
  const verify = (r: Replica, key: string, i = 0) => r.request('POST', '/verify/math', { apiKey: key, body: { expression: `${i}+1=${i + 1}` } });

  t.test('a key created on A verifies on B; revoked on B it is refused on A', async (t) => {
    const acct = await signup(A);
    const key = await createKey(A, acct.token);
    const onB = await verify(B, key.key);
    t.equal(onB.status, 200, onB.text);
    t.equal(onB.body.status, 'VERIFIED');
    const revoke = await B.request('DELETE', `/auth/api-keys/${key.id}`, { headers: { authorization: `Bearer ${acct.token}` } });
    t.equal(revoke.status, 200, revoke.text);
    t.equal((await verify(A, key.key)).status, 401, 'the revocation is seen by the other replica at once');
  });

  t.test('attestations from A verify on B; both publish the same JWKS and identity keys', async (t) => {
    const acct = await signup(A);
    const key = await createKey(A, acct.token);
    const v = await verify(A, key.key, 7);
    t.equal(v.status, 200);
    t.type(v.body.attestation, 'string');
    const onB = await B.request('POST', '/attestation/verify', { apiKey: key.key, body: { jwt: v.body.attestation } });
    t.equal(onB.status, 200, onB.text);
    t.equal(onB.body.valid, true);
    t.equal((await B.request('GET', `/attestation/${v.body.attestation_id}`, { apiKey: key.key })).status, 200, 'the record is shared too');
    const [ja, jb] = await Promise.all([A.request('GET', '/.well-known/jwks.json'), B.request('GET', '/.well-known/jwks.json')]);
    t.equal(ja.status, 200);
    t.same(ja.body, jb.body, 'identical JWKS');
  });

  t.test('the plan limit counts requests on both replicas together', async (t) => {
    const acct = await signup(B);
    const key = await createKey(B, acct.token);
    // the free plan allows 60 per (epoch-aligned) minute: start with enough of the minute left
    await waitFor(() => 60_000 - (Date.now() % 60_000) >= 10_000, { what: 'a minute with 10 s left', timeoutMs: 15_000, everyMs: 100 });
    const minute = Math.floor(Date.now() / 60_000);
    const res = await Promise.all(Array.from({ length: 70 }, (_, i) => verify(i % 2 ? A : B, key.key, i)));
    t.equal(Math.floor(Date.now() / 60_000), minute, 'all requests fell in one window');
    t.equal(res.filter((r) => r.status === 200).length, 60, 'exactly the plan limit is allowed across replicas');
    t.equal(res.filter((r) => r.status === 429).length, 10);
  });

  t.test('the per-IP limit of anonymous /auth/* is one counter across replicas', async (t) => {
    await waitFor(() => 60_000 - (Date.now() % 60_000) >= 5_000, { what: 'a minute with 5 s left', timeoutMs: 10_000, everyMs: 100 });
    const minute = Math.floor(Date.now() / 60_000);
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await (i % 2 ? B : A).request('POST', '/auth/signin', { body: { email: 'nobody@example.com', password: 'wrong password here' } });
      t.equal(r.status, 401);
      remaining.push(Number(r.headers['ratelimit-remaining']));
    }
    t.equal(Math.floor(Date.now() / 60_000), minute, 'one window');
    t.same(
      remaining.slice(1).map((n, i) => remaining[i] - n),
      [1, 1, 1, 1, 1],
      'each request, on either replica, takes one from the same bucket',
    );
  });

  t.test('500 concurrent verifications across A and B leave one valid chain with 500 entries', async (t) => {
    const acct = await signup(A);
    // an enterprise organisation (no plan limit), set before its first API-key request
    // the audit entries are stored in their compact layout: read through the audit plugin's codecs
    const store = new PgStore({ url: db.url, codecs: AUDIT_CODECS });
    t.teardown(() => store.close());
    await store.collection<Record<string, unknown>>('auth.orgs').update(acct.orgId, (o) => (o ? { ...o, tier: 'enterprise' } : undefined));
    const key = await createKey(A, acct.token);
    const res = await Promise.all(Array.from({ length: 500 }, (_, i) => verify(i % 2 ? A : B, key.key, i)));
    t.same(
      [...new Set(res.map((r) => r.status))],
      [200],
    );
    let verifications = 0;
    const walk = await walkChains(store.collection(AUDIT_COLLECTION), secrets.SVC_AUDIT_SECRET_KEY, {
      orgId: acct.orgId,
      onEntry: (e: AuditEntry) => void (e.route === '/verify/math' && verifications++),
    });
    t.equal(walk.broken, null);
    t.equal(walk.orgs, 1);
    t.equal(verifications, 500, 'every verification of both replicas is in the one chain');
    const cli = spawnSync(...nodeCommand([CLI, 'audit', 'verify', '--org', acct.orgId]), {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...secrets, SVC_STORE_URL: db.url, SVC_CONFIG: '' },
    });
    t.equal(cli.status, 0, cli.stdout + cli.stderr);
    t.match(cli.stdout, new RegExp(`^OK: ${walk.entries} entries in 1 chain`, 'm'), 'proofgate audit verify accepts the shared chain');
  });

  t.test('Redis stopped mid-run: limited requests are denied and /readyz is false; both recover when it returns', async (t) => {
    const acct = await signup(A);
    const key = await createKey(A, acct.token);
    t.equal((await verify(B, key.key)).status, 200);
    await redis.stop();
    for (const r of [A, B]) {
      const denied = await verify(r, key.key);
      t.equal(denied.status, 503, 'fail closed: the limit cannot be known');
      t.equal(denied.body.code, 'rate_limiter_unavailable');
      await waitFor(async () => (await r.request('GET', '/readyz')).status === 503, { what: 'readyz to report the lost Redis', timeoutMs: 60_000, everyMs: 50 });
    }
    await redis.start();
    for (const r of [A, B]) {
      await waitFor(async () => (await verify(r, key.key)).status === 200, { what: 'the replica to use Redis again', timeoutMs: 60_000, everyMs: 50 });
      await waitFor(async () => (await r.request('GET', '/readyz')).status === 200, { what: 'readyz to recover', timeoutMs: 60_000, everyMs: 50 });
    }
    t.pass('recovered');
  });

  t.test('/readyz is false until the store answers', async (t) => {
    // PostgreSQL behind a switchable TCP relay: refused first, then forwarded
    const relay = await pgRelay(t, db.url, { open: false });
    // C's one engine is fact, which has no warm-up (math's costs a replica about a second of CPU)
    const C = await startReplica({ ...env, SVC_STORE_URL: relay.url, SVC_PLUGINS_DISABLED: 'math,logic,code,sql,image,consensus,rag,process,stats,natural-language' }, await freePort());
    t.teardown(() => C.stop());
    t.equal((await C.request('GET', '/healthz')).status, 200, 'live');
    t.equal((await C.request('GET', '/readyz')).status, 503, 'not ready without its store');
    t.notOk(C.child.exitCode, 'still running');
    relay.setOpen(true);
    await waitFor(async () => (await C.request('GET', '/readyz')).status === 200, { what: 'readyz once the store answers', timeoutMs: 60_000, everyMs: 50 });
    const acct = await signup(A);
    const key = await createKey(A, acct.token);
    const onC = await C.request('POST', '/verify/fact', { apiKey: key.key, body: { claim: 'It is red.', context: 'It is red.' } });
    t.equal(onC.status, 200, 'and it serves the shared data: a key created on A');
  });
}
