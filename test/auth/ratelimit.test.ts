import t from 'tap';
import health from '../../plugins/health/index.js';
import audit from '../../plugins/audit/index.js';
import agents from '../../plugins/agents/index.js';
import { createAuthPlugin, clientIp, MemoryLimiter, normalizeAddress, rateSubject, trustedProxyList, type Accounts } from '../../plugins/auth/index.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { createKey, signup, verificationTestPlugin } from '../helpers/tenancy.js';

t.test('address normalisation and trusted proxies', async (t) => {
  t.equal(normalizeAddress('1.2.3.4:5678'), '1.2.3.4');
  t.equal(normalizeAddress('[::1]:80'), '::1');
  t.equal(normalizeAddress('[2001:db8::7]'), '2001:db8::7');
  t.equal(normalizeAddress('2001:db8::7'), '2001:db8::7', 'bare IPv6 keeps its last group');
  t.equal(normalizeAddress('::ffff:10.0.0.1'), '10.0.0.1');
  t.equal(normalizeAddress('not-an-ip'), null);
  const trusted = trustedProxyList(['10.0.0.0/8', '2001:db8::/32', '192.168.1.1']);
  t.equal(clientIp('10.1.2.3', { 'x-forwarded-for': '6.6.6.6, 7.7.7.7:1234' }, trusted), '7.7.7.7', 'rightmost hop, port stripped');
  t.equal(clientIp('2001:db8::1', { 'x-forwarded-for': '[2001:db9::5]:443' }, trusted), '2001:db9::5', 'IPv6 proxy and hop');
  t.equal(clientIp('192.168.1.1', { 'x-forwarded-for': 'garbage' }, trusted), '192.168.1.1', 'unparsable hop → peer');
  t.equal(clientIp('8.8.8.8', { 'x-forwarded-for': '7.7.7.7' }, trusted), '8.8.8.8', 'untrusted peer: header ignored');
  t.equal(clientIp('10.0.0.9', { 'x-forwarded-for': ['1.1.1.1', '2.2.2.2'] }, trusted), '2.2.2.2', 'repeated headers');
  t.equal(clientIp('10.0.0.9', {}, null), '10.0.0.9');
  t.throws(() => trustedProxyList(['10.0.0.0/33']));
  t.throws(() => trustedProxyList(['example.com']));
});

t.test('in-process limiter: exact under concurrency, bounded memory, windows roll over', async (t) => {
  const lim = new MemoryLimiter(100);
  const now = 1_000_000_000_000;
  const rule = [{ key: 'k', limit: 10, windowMs: 60_000 }];
  const results = await Promise.all(Array.from({ length: 100 }, () => lim.consume(rule, now)));
  t.equal(results.filter((r) => r.allowed).length, 10);
  const denied = results.find((r) => !r.allowed)!;
  t.equal(denied.remaining, 0);
  t.ok(denied.resetMs > 0 && denied.resetMs <= 60_000);
  t.ok((await lim.consume(rule, now + 60_000)).allowed, 'next window');
  for (let i = 0; i < 1000; i++) await lim.consume([{ key: `x${i}`, limit: 5, windowMs: 60_000 }], now);
  t.ok(lim.size <= 100, `size ${lim.size} bounded`);
  // a request refused by the minute rule does not consume the day rule
  const two = new MemoryLimiter();
  const rules = [
    { key: 'm', limit: 1, windowMs: 60_000 },
    { key: 'd', limit: 2, windowMs: 86_400_000 },
  ];
  t.ok((await two.consume(rules, now)).allowed);
  t.notOk((await two.consume(rules, now)).allowed);
  t.notOk((await two.consume(rules, now + 1)).allowed);
  const next = await two.consume(rules, now + 60_000);
  t.ok(next.allowed, 'day quota still has room');
  const dayOut = await two.consume(rules, now + 120_000);
  t.notOk(dayOut.allowed);
  t.ok(dayOut.resetMs > 60_000, 'denial reports the day window');
});

async function signins(s: TestServer, n: number, headers: Record<string, string> = {}) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await s.request('POST', '/auth/signin', { body: { email: 'nobody@example.com', password: 'x' }, headers }));
  return out;
}

// per-minute windows are epoch-aligned: a fixed clock keeps a test from straddling a minute boundary
const inOneMinute = () => 1_700_000_010_000;

t.test('anonymous /auth/* limit per client IP; X-Forwarded-For only from trusted proxies', async (t) => {
  const s = await startServer({ plugins: [health, createAuthPlugin({ now: inOneMinute })], config: { auth: { anonymous_rate_per_minute: 3 } } });
  t.teardown(() => s.close());
  const rs = await signins(s, 3, { 'x-forwarded-for': '1.1.1.1' });
  t.same(rs.map((r) => r.status), [401, 401, 401]);
  t.equal(rs[2].headers.get('ratelimit-remaining'), '0');
  // a spoofed header from an untrusted peer changes nothing: same bucket (the peer address)
  const [limited] = await signins(s, 1, { 'x-forwarded-for': '2.2.2.2' });
  t.equal(limited.status, 429);
  t.equal(limited.body.code, 'rate_limited');
  const retry = Number(limited.headers.get('retry-after'));
  t.ok(Number.isInteger(retry) && retry >= 1, `Retry-After ${retry}`);
  t.equal(limited.headers.get('ratelimit-limit'), '3');
  t.equal(limited.headers.get('ratelimit-remaining'), '0');
  t.ok(Number(limited.headers.get('ratelimit-reset')) >= 1);
  t.equal((await s.request('GET', '/health')).status, 200, 'non-auth anonymous routes are not limited');
});

t.test('behind a trusted proxy the rightmost X-Forwarded-For hop is the client', async (t) => {
  const s = await startServer({
    plugins: [health, createAuthPlugin({ now: inOneMinute })],
    config: { auth: { anonymous_rate_per_minute: 2, trusted_proxies: ['127.0.0.0/8', '::1'] } },
  });
  t.teardown(() => s.close());
  t.same((await signins(s, 3, { 'x-forwarded-for': '9.9.9.9, 5.5.5.5' })).map((r) => r.status), [401, 401, 429]);
  // a different left part (client-supplied) with the same rightmost hop: same client
  t.equal((await signins(s, 1, { 'x-forwarded-for': '8.8.8.8, 5.5.5.5:4444' }))[0].status, 429);
  t.same((await signins(s, 2, { 'x-forwarded-for': '5.5.5.6' })).map((r) => r.status), [401, 401], 'another client has its own bucket');
  t.same((await signins(s, 2, { 'x-forwarded-for': '[2001:db8::1]:8080' })).map((r) => r.status), [401, 401]);
  // one IPv6 client holds a whole /64: another address in it, however written, is the same client
  t.equal((await signins(s, 1, { 'x-forwarded-for': '2001:db8:0:0:ffff:1:2:3' }))[0].status, 429, 'same /64');
  t.equal((await signins(s, 1, { 'x-forwarded-for': '[2001:0DB8::abcd]:1' }))[0].status, 429, 'same /64, other spelling');
  t.same((await signins(s, 2, { 'x-forwarded-for': '2001:db8:0:1::1' })).map((r) => r.status), [401, 401], 'the next /64 is another client');
});

t.test('rate subjects: IPv4 as is, IPv6 by its /64 in one spelling', async (t) => {
  t.equal(rateSubject('1.2.3.4'), '1.2.3.4');
  t.equal(rateSubject('2001:db8::1'), '2001:db8:0:0::/64');
  t.equal(rateSubject('2001:0DB8:0000:0000:1:2:3:4'), '2001:db8:0:0::/64');
  t.equal(rateSubject('2001:db8:a:b:c:d:e:f'), '2001:db8:a:b::/64');
  t.equal(rateSubject('::1'), '0:0:0:0::/64');
  t.equal(rateSubject('::'), '0:0:0:0::/64');
  t.equal(rateSubject('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64', 'a dotted tail');
  t.equal(rateSubject('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone id');
  t.equal(rateSubject('2001:db8:1:2::'), '2001:db8:1:2::/64', 'trailing ::');
});

t.test('an IPv6-only trusted list does not trust an IPv4 peer', async (t) => {
  const s = await startServer({ plugins: [health, createAuthPlugin({ now: inOneMinute })], config: { auth: { anonymous_rate_per_minute: 1, trusted_proxies: ['::1/128'] } } });
  t.teardown(() => s.close());
  t.equal((await signins(s, 1, { 'x-forwarded-for': '3.3.3.3' }))[0].status, 401);
  t.equal((await signins(s, 1, { 'x-forwarded-for': '4.4.4.4' }))[0].status, 429, 'header ignored');
});

t.test('a multi-unit charge is all or nothing', async (t) => {
  const lim = new MemoryLimiter();
  const now = Date.UTC(2030, 0, 1);
  const rules = [{ key: 'o', limit: 10, windowMs: 60_000 }];
  t.ok((await lim.consume(rules, now, 4)).allowed);
  const over = await lim.consume(rules, now, 7);
  t.notOk(over.allowed, '4 + 7 > 10');
  t.equal(over.remaining, 6, 'a refused charge counts nothing');
  t.ok((await lim.consume(rules, now, 6)).allowed, 'exactly what is left');
  t.notOk((await lim.consume(rules, now)).allowed);
});

t.test('per-organisation limits by plan, with a fake clock', async (t) => {
  let clock = Date.UTC(2030, 0, 1, 12, 0, 0);
  const auth = createAuthPlugin({
    tierLimits: { free: { perMinute: 3, perDay: 5 }, pro: { perMinute: 4, perDay: 100 }, enterprise: null },
    now: () => clock,
  });
  const s = await startServer({ plugins: [health, auth, audit, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const free = await signup(s);
  const fk = (await createKey(s, free.token)).key;
  const call = (k: string) => s.request('POST', '/test/verify', { apiKey: k, body: { outcome: 'verified' } });
  const first = await call(fk);
  t.equal(first.status, 200);
  t.equal(first.headers.get('ratelimit-limit'), '3');
  t.equal(first.headers.get('ratelimit-remaining'), '2');
  await call(fk);
  await call(fk);
  const over = await call(fk);
  t.equal(over.status, 429);
  t.ok(Number(over.headers.get('retry-after')) >= 1 && Number(over.headers.get('retry-after')) <= 60);
  t.equal((await s.request('GET', '/logs', { apiKey: fk })).status, 429, 'every API-key route counts');
  clock += 60_000;
  t.equal((await call(fk)).status, 200, 'new minute');
  t.equal((await call(fk)).status, 200);
  const day = await call(fk);
  t.equal(day.status, 429, 'day quota of 5 used');
  t.ok(Number(day.headers.get('retry-after')) > 60, 'retry after the day window');
  const other = (await createKey(s, free.token, { name: 'second' })).key;
  t.equal((await call(other)).status, 429, 'a second key of the organisation shares its quota');
  const free2 = await signup(s);
  t.equal((await call((await createKey(s, free2.token)).key)).status, 200, 'another organisation has its own');

  const accounts = s.kernel.app.service('auth.accounts')!;
  const pro = await signup(s);
  await accounts.setTier(pro.user.org_id, 'pro');
  const pk = (await createKey(s, pro.token)).key;
  const proRes = [];
  for (let i = 0; i < 5; i++) proRes.push((await call(pk)).status);
  t.same(proRes, [200, 200, 200, 200, 429], 'pro limit');
  const ent = await signup(s);
  await accounts.setTier(ent.user.org_id, 'enterprise');
  const ek = (await createKey(s, ent.token)).key;
  const entRes = [];
  for (let i = 0; i < 12; i++) entRes.push((await call(ek)).status);
  t.ok(entRes.every((x) => x === 200), 'enterprise unlimited');
});

t.test('plans come from config; agent tokens count against their organisation', async (t) => {
  const s = await startServer({
    plugins: [health, createAuthPlugin(), agents, audit, verificationTestPlugin],
    config: { auth: { anonymous_rate_per_minute: 100 }, limits: { plans: { free: { per_minute: 4, per_day: 100 }, team: { per_minute: 50, per_day: null } } } },
  });
  t.teardown(() => s.close());
  const acct = await signup(s);
  const key = (await createKey(s, acct.token, { name: 'a', scopes: ['verify:read', 'agent:write'] })).key;
  const reg = await s.request('POST', '/agents/register', { apiKey: key, body: { name: 'bot', agent_type: 'assistant' } });
  t.equal(reg.status, 201, reg.text);
  const agentCall = () =>
    s.request('GET', `/agents/${reg.body.agent_id}/activity`, { headers: { 'x-agent-token': reg.body.agent_token } });
  const first = await agentCall();
  t.equal(first.status, 200, first.text);
  t.equal(first.headers.get('ratelimit-limit'), '4', 'the configured free plan');
  t.equal(first.headers.get('ratelimit-remaining'), '2', 'register (API key) + this call (agent token)');
  t.equal((await agentCall()).status, 200);
  t.equal((await agentCall()).status, 200);
  const over = await agentCall();
  t.equal(over.status, 429, 'the agent token is held to the plan');
  t.ok(Number(over.headers.get('retry-after')) >= 1);
  t.equal((await s.request('POST', '/test/verify', { apiKey: key, body: {} })).status, 429, 'and uses the same organisation quota as its keys');

  const orgs = s.kernel.app.service('auth.orgs')!;
  await t.rejects(orgs.setPlan(acct.user.org_id, 'gold'), /allowed: free, pro, enterprise, unlimited, team/);
  const accounts = s.kernel.app.service('auth.accounts')!;
  await accounts.setTier(acct.user.org_id, 'retired-plan');
  const other = await signup(s);
  await accounts.setTier(other.user.org_id, 'retired-plan');
  const k2 = (await createKey(s, other.token)).key;
  t.equal((await s.request('POST', '/test/verify', { apiKey: k2, body: {} })).headers.get('ratelimit-limit'), '4', 'a plan that no longer exists gets the free limits');
  await orgs.setPlan(acct.user.org_id, 'team');
  const r = await agentCall();
  t.equal(r.status, 200, 'a plan set through the service applies at once');
  t.equal(r.headers.get('ratelimit-limit'), '50');
});
