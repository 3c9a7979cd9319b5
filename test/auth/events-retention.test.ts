import t from 'tap';
import { LmdbStore } from '../../core/store/lmdb.js';
import { SecurityEvents } from '../../plugins/auth/events.js';
import { startServer, builtinsWithoutEngines } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Security-event retention (auth.security_events_retention_days, default: keep everything): events
 * last seen longer ago than the window go, per organisation; the rest stay.
 */
const DAY = 86_400_000;
const EVENTS = 'security.events';
const event = (org: string, lastMs: number) => ({ org_id: org, type: 'auth_failure', count: 1, first_at: new Date(lastMs).toISOString(), last_at: new Date(lastMs).toISOString(), key_id: null, detail: null });

t.test('SecurityEvents.prune removes each organisation’s events past the window', async (t) => {
  const store = new LmdbStore(tempDir(t, 'pg-events-'));
  t.teardown(() => store.close());
  const col = store.collection(EVENTS);
  const now = Date.parse('2026-06-30T00:00:00Z');
  const put = (org: string, ms: number, i: number) => col.put(`${org}/${new Date(ms).toISOString()}/${i.toString(16).padStart(8, '0')}`, event(org, ms));
  for (let i = 0; i < 1200; i++) await put('org_a', now - 60 * DAY + i, i);
  await put('org_a', now - DAY, 9999);
  await put('org_b', now - 31 * DAY, 1);
  await put('org_b', now - 29 * DAY, 2);
  await put('org_c', now - 40 * DAY, 1);
  const events = new SecurityEvents(store);
  t.equal(await events.prune(30, () => now), 1200 + 1 + 1);
  t.same((await col.list()).map((e) => e.key.slice(0, 5)), ['org_a', 'org_b'], 'one event of org_a and one of org_b are inside the window');
  t.equal((await events.list('org_b', new Date(now - 365 * DAY).toISOString())).length, 1, 'a report over the year sees what is kept');
});

t.test('a server with the retention set removes expired events at start', async (t) => {
  const dir = tempDir(t, 'pg-events-srv-');
  const seed = new LmdbStore(dir);
  await seed.collection(EVENTS).put(`org_x/${new Date(Date.now() - 90 * DAY).toISOString()}/00000001`, event('org_x', Date.now() - 90 * DAY));
  await seed.collection(EVENTS).put(`org_x/${new Date(Date.now() - DAY).toISOString()}/00000002`, event('org_x', Date.now() - DAY));
  await seed.close();
  const s = await startServer({ plugins: builtinsWithoutEngines, dataDir: dir, warmEngines: false, config: { auth: { security_events_retention_days: 30 } } });
  t.teardown(() => s.close());
  const col = s.kernel.app.store.collection(EVENTS);
  await waitFor(async () => (await col.count({ prefix: 'org_x/' })) === 1, { what: 'the start-up sweep', timeoutMs: 15_000 });
  t.equal(await col.count({ prefix: 'org_x/' }), 1, 'the 90-day-old event is gone, yesterday’s stays');
  const refused = startServer({ plugins: builtinsWithoutEngines, env: { SVC_SECURITY_EVENTS_RETENTION_DAYS: '0' }, warmEngines: false });
  await t.rejects(refused, /SVC_SECURITY_EVENTS_RETENTION_DAYS|security_events_retention_days/, 'a retention under a day is refused at start');
});
