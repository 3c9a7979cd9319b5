import t from 'tap';
import { startServer, builtinsWithoutEngines } from '../helpers/server.js';
import { bearer, tenant, verificationTestPlugin } from '../helpers/tenancy.js';

/** `ms` written as RFC 3339 local time at UTC+05:00: the same instant, a different text */
const plus5 = (ms: number) => new Date(ms + 5 * 3_600_000).toISOString().replace('Z', '+05:00');

t.test('SOC 2 report periods are instants, whatever RFC 3339 form the bounds take', async (t) => {
  const s = await startServer({ plugins: [...builtinsWithoutEngines, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const a = await tenant(s);
  for (const o of ['verified', 'blocked']) await s.request('POST', '/test/verify', { apiKey: a.key, body: { outcome: o } });
  const report = (query: string) => s.request('GET', `/admin/compliance/report/soc2/${a.orgId}?${query}`, { apiKey: a.key });

  // an hour ago, written at +05:00, reads five hours *later* as text than the entries just made:
  // compared as text, the period started after them and counted none
  const hourAgo = Date.now() - 3_600_000;
  const offset = await report(`from=${encodeURIComponent(plus5(hourAgo))}`);
  t.equal(offset.status, 200);
  t.equal(offset.body.figures.verifications, 2, 'both verifications lie inside the period');
  t.equal(offset.body.period.from, new Date(hourAgo).toISOString(), 'the bound is reported in the stored form');

  // `to` at the whole second of the last verification: as text, `…:52Z` sorts after `…:52.909Z`,
  // so an entry made after the period ended was counted
  const logs = await s.request('GET', '/audit/logs', { headers: bearer(a.token) });
  const stamps: string[] = logs.body.logs.filter((e: { route: string }) => e.route === '/test/verify').map((e: { timestamp: string }) => e.timestamp);
  const second = stamps.reduce((m, x) => (x > m ? x : m)).slice(0, 19) + 'Z';
  const within = await report(`from=2020-01-01T00:00:00Z&to=${second}`);
  t.equal(within.status, 200);
  t.equal(within.body.figures.verifications, stamps.filter((x) => Date.parse(x) <= Date.parse(second)).length, 'only entries up to the instant `to` names');

  // RFC 3339 allows a leap second; Date cannot hold one, and it was a 500
  const leap = await report(`from=2016-12-31T00:00:00Z&to=${encodeURIComponent('2016-12-31T23:59:60Z')}`);
  t.equal(leap.status, 200);
  t.same(leap.body.period, { from: '2016-12-31T00:00:00.000Z', to: '2017-01-01T00:00:00.000Z' });
  t.equal(leap.body.figures.verifications, 0);
  const leapOnly = await report(`to=${encodeURIComponent('2016-12-31T23:59:60Z')}`);
  t.equal(leapOnly.status, 200, 'the default start is 30 days before a leap-second end');
  t.equal(leapOnly.body.period.from, '2016-12-02T00:00:00.000Z');

  const swapped = await report(`from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z`);
  t.equal(swapped.status, 400, 'a period that ends before it starts is refused, not reported empty');
  t.equal(swapped.body.code, 'validation_failed');
  t.same(swapped.body.errors.map((e: { field: string }) => e.field), ['/query/from']);
  const future = await report(`from=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`);
  t.equal(future.status, 400, 'a start after the default end (now) too');
  const instant = await report(`from=2024-01-01T00:00:00Z&to=2024-01-01T00:00:00Z`);
  t.equal(instant.status, 200, 'a period of one instant is a period');
});
