import t from 'tap';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import pino from 'pino';
import health from '../../plugins/health/index.js';
import { createAuthPlugin, createLimiter, RedisLimiter } from '../../plugins/auth/index.js';
import { startServer } from '../helpers/server.js';
import { createKey, signup } from '../helpers/tenancy.js';
import { freePort, killProcess, startRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Against a real redis-server started here on a free port (never the shared one on 6379),
 * persistence off. Killing it mid-test must deny requests (fail closed).
 */
const silent = pino({ level: 'silent' });
const kill = (child: ChildProcess) => killProcess(child);

t.test('two replicas sharing Redis never overshoot a limit', async (t) => {
  const port = await freePort();
  const redis = await startRedis(port);
  t.teardown(() => kill(redis));
  const url = `redis://127.0.0.1:${port}`;
  const a = await createLimiter(url, silent);
  const b = await createLimiter(url, silent);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  t.equal(a.kind, 'redis');
  t.ok(a instanceof RedisLimiter);
  const now = Date.now();
  const rules = [
    { key: 'shared', limit: 25, windowMs: 60_000 },
    { key: 'shared-day', limit: 1000, windowMs: 86_400_000 },
  ];
  const res = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).consume(rules, now)));
  t.equal(res.filter((r) => r.allowed).length, 25);
  const denied = res.find((r) => !r.allowed)!;
  t.equal(denied.limit, 25);
  t.equal(denied.remaining, 0);
  // denied requests did not eat the day quota: 25 allowed, so the day bucket holds 25
  const day = await a.consume([{ key: 'shared-day', limit: 1000, windowMs: 86_400_000 }], now);
  t.equal(day.remaining, 1000 - 26);
  t.ok((await a.consume(rules, now + 60_000)).allowed, 'next minute window');

  // a multi-unit charge (a batch) is all or nothing across replicas too
  const units = [{ key: 'units', limit: 10, windowMs: 60_000 }];
  t.ok((await a.consume(units, now, 4)).allowed);
  const over = await b.consume(units, now, 7);
  t.notOk(over.allowed, '4 + 7 > 10');
  t.equal(over.remaining, 6, 'the refused charge counted nothing');
  const exact = await b.consume(units, now, 6);
  t.ok(exact.allowed);
  t.equal(exact.remaining, 0);

  await kill(redis);
  await t.rejects(a.consume(rules, now), { name: 'LimiterUnavailableError', message: /redis rate limiter failed/ }, 'runtime failure surfaces as unavailable');
});

t.test('Redis unreachable at start-up: in-process limiter until restart', async (t) => {
  const port = await freePort();
  const lim = await createLimiter(`redis://127.0.0.1:${port}`, silent, 500);
  t.teardown(() => lim.close());
  t.equal(lim.kind, 'memory');
  t.ok((await lim.consume([{ key: 'x', limit: 1, windowMs: 60_000 }], Date.now())).allowed);
});

t.test('server with a Redis limiter: limits shared, requests denied when Redis dies', async (t) => {
  const port = await freePort();
  let redis = await startRedis(port);
  t.teardown(() => kill(redis));
  const s = await startServer({
    plugins: [health, createAuthPlugin()],
    config: { auth: { anonymous_rate_per_minute: 50, rate_limit_redis_url: `redis://127.0.0.1:${port}` } },
  });
  t.teardown(() => s.close());
  t.equal(s.kernel.app.service('auth.limiter')!.kind(), 'redis');
  const acct = await signup(s);
  const key = (await createKey(s, acct.token)).key;
  const ok = await s.request('POST', '/admin/keys/rotate', { apiKey: key, body: { key_id: 'key_none' } });
  t.equal(ok.status, 404, 'limited route reached its handler');
  t.equal(ok.headers.get('ratelimit-limit'), '60', 'free tier limit from Redis');
  t.equal(ok.headers.get('ratelimit-remaining'), '59');
  const probe = new Redis({ port, host: '127.0.0.1' });
  const stored = await probe.keys('proofgate:rl:org:*');
  probe.disconnect();
  t.ok(stored.length >= 2, 'minute and day buckets live in Redis');

  await kill(redis);
  const denied = await s.request('POST', '/admin/keys/rotate', { apiKey: key, body: { key_id: 'key_none' } });
  t.equal(denied.status, 503);
  t.equal(denied.body.code, 'rate_limiter_unavailable');
  t.ok(Number(denied.headers.get('retry-after')) >= 1);
  const anon = await s.request('POST', '/auth/signin', { body: { email: acct.user.email, password: 'correct horse battery' } });
  t.equal(anon.status, 503, 'anonymous routes fail closed too');
  t.equal((await s.request('GET', '/health')).status, 200, 'unlimited routes unaffected');

  // Redis back: the client reconnects and requests pass again (no restart needed)
  redis = await startRedis(port);
  const signin = async () => (await s.request('POST', '/auth/signin', { body: { email: acct.user.email, password: 'correct horse battery' } })).status;
  await waitFor(async () => (await signin()) === 200, { what: 'requests to pass once Redis is back', timeoutMs: 30_000, everyMs: 100 });
  t.pass('recovered after Redis came back');
});

t.test('a Redis that stops answering while its connection stays open: denied, and /readyz says so', async (t) => {
  const port = await freePort();
  const redis = await startRedis(port);
  // a frozen server (or a partition that leaves the TCP connection up): the client stays 'ready'
  const resume = () => void redis.kill('SIGCONT');
  t.teardown(async () => {
    resume();
    await kill(redis);
  });
  const s = await startServer({
    plugins: [health, createAuthPlugin()],
    config: { auth: { anonymous_rate_per_minute: 50, rate_limit_redis_url: `redis://127.0.0.1:${port}` } },
  });
  t.teardown(() => s.close());
  const ready = async () => (await s.request('GET', '/readyz')).status;
  await waitFor(async () => (await ready()) === 200, { what: 'the server to be ready', timeoutMs: 30_000, everyMs: 50 });
  const acct = await signup(s);
  const key = (await createKey(s, acct.token)).key;

  redis.kill('SIGSTOP');
  const denied = await s.request('POST', '/admin/keys/rotate', { apiKey: key, body: { key_id: 'key_none' } });
  t.equal(denied.status, 503, 'the command times out: denied');
  t.equal(denied.body.code, 'rate_limiter_unavailable');
  await waitFor(async () => (await ready()) === 503, { what: '/readyz to report the silent Redis', timeoutMs: 30_000, everyMs: 100 });
  t.pass('not ready while Redis does not answer');

  resume();
  await waitFor(async () => (await ready()) === 200, { what: '/readyz to recover', timeoutMs: 30_000, everyMs: 100 });
  const ok = await s.request('POST', '/admin/keys/rotate', { apiKey: key, body: { key_id: 'key_none' } });
  t.equal(ok.status, 404, 'limited requests pass again');
});
