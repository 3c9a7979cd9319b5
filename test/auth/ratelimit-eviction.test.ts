import t from 'tap';
import health from '../../plugins/health/index.js';
import audit from '../../plugins/audit/index.js';
import { createAuthPlugin, MemoryLimiter } from '../../plugins/auth/index.js';
import { startServer } from '../helpers/server.js';
import { createKey, signup, verificationTestPlugin } from '../helpers/tenancy.js';

/**
 * The in-process limiter bounds its counters and evicts the least recently used ones, which
 * restarts them at zero. Anonymous sign-in attempts make one counter per client address (per /64
 * for IPv6), and an IPv6 client routed a /48 has 65,536 /64s: spraying them must not evict — and so reset — an
 * organisation's plan quota. The bound is made small here (the default is 100,000) so that a few
 * dozen requests show what a hundred thousand would.
 */
t.test("anonymous per-address counters cannot evict an organisation's quota", async (t) => {
  const bound = 40;
  const clock = Date.UTC(2030, 0, 1, 12, 0, 5);
  const auth = createAuthPlugin({ limiter: new MemoryLimiter(bound), tierLimits: { free: { perMinute: 100, perDay: 3 }, pro: null, enterprise: null }, now: () => clock });
  const s = await startServer({
    plugins: [health, auth, audit, verificationTestPlugin],
    // the test client is the trusted proxy, so X-Forwarded-For names the address each attempt comes from
    config: { auth: { anonymous_rate_per_minute: 5, trusted_proxies: ['127.0.0.1', '::1'] } },
  });
  t.teardown(() => s.close());
  const acct = await signup(s, { headers: { 'x-forwarded-for': '2001:db8:1::1' } });
  const key = (await createKey(s, acct.token)).key;
  const call = () => s.request('GET', '/logs', { apiKey: key });
  const used = [];
  for (let i = 0; i < 4; i++) used.push((await call()).status);
  t.same(used, [200, 200, 200, 429], 'the day quota of 3 is spent');

  // one refused sign-in (an empty body: no password work) from each of more addresses than the bound
  const sprayed = new Set<number>();
  for (let i = 0; i < bound * 2; i++) {
    sprayed.add((await s.request('POST', '/auth/signin', { body: {}, headers: { 'x-forwarded-for': `2001:db8:66:${i.toString(16)}::1` } })).status);
  }
  t.same([...sprayed], [400], 'every attempt was counted and reached validation');
  t.equal((await call()).status, 429, 'the quota is still spent');
  // and the per-address limit itself still holds
  const again = [];
  for (let i = 0; i < 6; i++) again.push((await s.request('POST', '/auth/signin', { body: {}, headers: { 'x-forwarded-for': '2001:db8:77::1' } })).status);
  t.same(again, [400, 400, 400, 400, 400, 429]);
});
