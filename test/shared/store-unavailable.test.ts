import t from 'tap';
import { PgStore } from '../../core/store/pg.js';
import { StoreFullError, StoreUnavailableError } from '../../core/store/store.js';
import { classifyPgError } from '../../core/store/pg-errors.js';
import { freshSchema, testDatabase, type TestDatabase } from '../helpers/pg.js';
import { startServer, builtinsWithoutEngines } from '../helpers/server.js';
import { createKey, signup, uniq, verificationTestPlugin } from '../helpers/tenancy.js';
import { waitFor } from '../helpers/wait.js';
import { pgRelay } from '../helpers/pg-relay.js';

/**
 * A running replica whose PostgreSQL stops answering: requests that need the store are worth
 * retrying shortly (here or on another replica), so they answer 503 `store_unavailable` with
 * Retry-After, not 500 `internal_error`; and they recover on their own once it answers again.
 */
t.test('classifyPgError: database failures are StoreUnavailableError, request errors pass through', async (t) => {
  for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300', '25006', '57014', 'ECONNREFUSED']) {
    t.type(classifyPgError(Object.assign(new Error(code), { code })), StoreUnavailableError, code);
  }
  t.type(classifyPgError(new Error('Connection terminated unexpectedly')), StoreUnavailableError);
  t.type(classifyPgError(new Error('Query read timeout')), StoreUnavailableError);
  const full = classifyPgError(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' }));
  t.type(full, StoreFullError, '53100 disk_full is a full store (507), not an unavailable one');
  t.match((full as Error).message, /No space left/);
  for (const code of ['23505', '42P01', '22P02']) {
    const err = Object.assign(new Error(code), { code });
    t.equal(classifyPgError(err), err, `${code} is not the database being away`);
  }
});

const db = await testDatabase(t);
if (db) await run(db);

async function run(db: TestDatabase) {

  t.test('503 store_unavailable while PostgreSQL does not answer, and back once it does', async (t) => {
    const relay = await pgRelay(t, db.url);
    const s = await startServer({
      plugins: [...builtinsWithoutEngines, verificationTestPlugin],
      config: { auth: { anonymous_rate_per_minute: 1000 } },
      store: () => new PgStore({ url: relay.url, schema: freshSchema(), openTimeoutMs: 2000, queryTimeoutMs: 2000 }),
    });
    t.teardown(() => s.close());
    const owner = await signup(s, { email: `${uniq('down')}@example.com` });
    const key = await createKey(s, owner.token, { name: 'ci' });
    const ok = await s.request('POST', '/test/verify', { apiKey: key.key, body: { outcome: 'verified' } });
    t.equal(ok.status, 200, 'served while the database answers');

    relay.setOpen(false);
    relay.cut();
    const down = await s.request('POST', '/test/verify', { apiKey: key.key, body: { outcome: 'verified' } });
    t.equal(down.status, 503);
    t.equal(down.body.code, 'store_unavailable');
    t.equal(down.headers.get("retry-after"), '5');
    t.notMatch(JSON.stringify(down.body), /127\.0\.0\.1|postgres|terminat/i, 'the database error stays in the log');
    const me = await s.request('GET', '/auth/me', { headers: { authorization: `Bearer ${owner.token}` } });
    t.equal(me.status, 503, 'a read route too');
    t.equal(me.body.code, 'store_unavailable');

    await waitFor(async () => (await s.request('GET', '/readyz')).status === 503, { what: '/readyz to turn 503', timeoutMs: 20_000, everyMs: 50 });
    t.same((await s.request('GET', '/readyz')).body, { status: 'unavailable' }, 'not "starting": this replica started and lost its store');

    relay.setOpen(true);
    const back = await s.request('POST', '/test/verify', { apiKey: key.key, body: { outcome: 'verified' } });
    t.equal(back.status, 200, 'recovers without a restart');
  });
}
