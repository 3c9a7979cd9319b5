import t from 'tap';
import pino from 'pino';
import { createPairBuckets, RedisPairBuckets, SharedBucketsUnavailableError } from '../../plugins/a2a/token-bucket-redis.js';
import { freePort, killProcess, startRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

/** The shared A2A pair buckets against a private redis-server on a free port. */
const silent = pino({ level: 'silent' });

t.test('two replicas share one bucket per pair: never more than its capacity, refill as in-process', async (t) => {
  const port = await freePort();
  const redis = await startRedis(port);
  t.teardown(() => killProcess(redis));
  let now = 1_700_000_000_000;
  const clock = () => now;
  const url = `redis://127.0.0.1:${port}`;
  const a = await createPairBuckets(url, 6, silent, { clock });
  const b = await createPairBuckets(url, 6, silent, { clock });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  t.ok(a instanceof RedisPairBuckets);
  t.equal(a.ready(), true);
  const res = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take('org-1', 'agent-x', 'agent-y')));
  t.equal(res.filter((r) => r.allowed).length, 6, 'a new bucket starts full, shared by both');
  const denied = res.find((r) => !r.allowed)!;
  t.equal(denied.retryAfterSeconds, 10, 'one token every 60/6 s');
  t.equal((await a.take('org-1', 'agent-x', 'agent-z')).allowed, true, 'pairs are independent');
  t.equal((await b.take('org-1', 'agent-x', 'agent-z')).remaining, 4);
  now += 10_000;
  t.same(await b.take('org-1', 'agent-x', 'agent-y'), { allowed: true, remaining: 0, retryAfterSeconds: 0 }, 'refilled one token');
  t.equal((await a.take('org-1', 'agent-x', 'agent-y')).allowed, false);
  now -= 60_000;
  t.equal((await a.take('org-1', 'agent-x', 'agent-y')).allowed, false, 'a clock stepping back mints nothing');
  t.equal((await a.take('org-1', 'ab', 'c')).remaining, 5);
  t.equal((await a.take('org-1', 'a', 'bc')).remaining, 5, 'ids cannot run into each other');
});

t.test('Redis lost at run time: take() rejects (the caller denies); recovered when it returns', async (t) => {
  const port = await freePort();
  let redis = await startRedis(port);
  t.teardown(() => killProcess(redis));
  const a = await createPairBuckets(`redis://127.0.0.1:${port}`, 5, silent);
  t.teardown(() => a.close());
  t.equal((await a.take('org-1', 's', 'r')).allowed, true);
  await killProcess(redis);
  await t.rejects(a.take('org-1', 's', 'r'), SharedBucketsUnavailableError);
  await waitFor(() => !a.ready(), { what: 'the buckets to notice Redis is gone', timeoutMs: 15_000 });
  t.equal(a.ready(), false, 'not ready while Redis is gone');
  redis = await startRedis(port);
  await waitFor(() => a.ready(), { what: 'the buckets to reconnect', timeoutMs: 15_000 });
  t.equal(a.ready(), true);
  t.equal((await a.take('org-1', 's', 'r')).allowed, true, 'a fresh server: a fresh, full bucket');
});

t.test('a Redis that stops answering while its connection stays open: not ready until it answers again', async (t) => {
  const port = await freePort();
  const redis = await startRedis(port);
  const resume = () => void redis.kill('SIGCONT');
  t.teardown(async () => {
    resume();
    await killProcess(redis);
  });
  const a = await createPairBuckets(`redis://127.0.0.1:${port}`, 5, silent);
  t.teardown(() => a.close());
  t.equal(a.ready(), true);
  // frozen: the TCP connection stays up, so the client's own status stays 'ready'
  redis.kill('SIGSTOP');
  await t.rejects(a.take('org-1', 's', 'r'), SharedBucketsUnavailableError, 'the command times out: the caller denies');
  await waitFor(() => !a.ready(), { what: 'the buckets to report the silent Redis', timeoutMs: 15_000 });
  resume();
  await waitFor(() => a.ready(), { what: 'the buckets to be ready once Redis answers', timeoutMs: 15_000 });
  t.equal((await a.take('org-1', 's', 'r')).allowed, true);
});

t.test('Redis unreachable at start-up: in-process buckets until restart', async (t) => {
  const port = await freePort();
  const a = await createPairBuckets(`redis://127.0.0.1:${port}`, 2, silent, { connectTimeoutMs: 300 });
  t.teardown(() => a.close());
  t.equal(a.kind, 'memory');
  t.equal((await a.take('org-1', 's', 'r')).allowed, true);
  t.equal((await a.take('org-1', 's', 'r')).allowed, true);
  t.equal((await a.take('org-1', 's', 'r')).allowed, false);
  t.equal((await createPairBuckets(null, 2, silent)).kind, 'memory', 'no URL: in-process');
});

t.test('two gateways on one Redis share the pair buckets of an organisation (trust step 5)', async (t) => {
  const { startA2AWithoutCode, message, intercept } = await import('../helpers/a2a.js');
  const port = await freePort();
  const redis = await startRedis(port);
  t.teardown(() => killProcess(redis));
  const config = { auth: { rate_limit_redis_url: `redis://127.0.0.1:${port}` } } as never;
  const a = await startA2AWithoutCode({ max_requests_per_minute: 3 }, [], config);
  t.teardown(() => a.close());
  const b = await startA2AWithoutCode({ max_requests_per_minute: 3 }, [], config);
  t.teardown(() => b.close());
  const statuses: string[] = [];
  for (const s of [a, b, a, b]) statuses.push((await intercept(s, message({ sender_agent_id: 'shared-x', receiver_agent_id: 'shared-y' }))).body.status);
  // a general message passes the boundary as unverifiable (nothing to prove); only step 5 blocks here
  t.same(statuses.slice(0, 3), ['unverifiable', 'unverifiable', 'unverifiable'], 'three tokens across both replicas');
  t.equal(statuses[3], 'blocked', 'the fourth, on either replica, finds the shared bucket empty');
  const fourth = await intercept(a, message({ sender_agent_id: 'shared-x', receiver_agent_id: 'shared-y' }));
  t.equal(fourth.body.details.trust_step, 5);
  await killProcess(redis);
  const down = await intercept(b, message({ sender_agent_id: 'fresh-x', receiver_agent_id: 'fresh-y' }));
  t.equal(down.body.status, 'blocked', 'Redis gone at run time: denied, not waved through');
  t.equal(down.body.details.trust_step, 5);
});
