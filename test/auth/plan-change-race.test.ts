import t from 'tap';
import health from '../../plugins/health/index.js';
import { createAuthPlugin, type Accounts, type OrgAdmin } from '../../plugins/auth/index.js';
import { startServer } from '../helpers/server.js';
import { createKey, signup, verificationTestPlugin } from '../helpers/tenancy.js';

/**
 * docs/ops.md: a plan set through this replica applies here at once (the organisation's cached plan
 * is invalidated). A request that had read the old plan just before the change used to cache it
 * after the invalidation, so the old limits came back for the cache's 30 s.
 */
t.test('a plan read in flight while the plan changes does not bring the old plan back', async (t) => {
  const s = await startServer({ plugins: [health, createAuthPlugin(), verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 100 } } });
  t.teardown(() => s.close());
  const acct = await signup(s);
  const key = (await createKey(s, acct.token)).key;
  const orgId = acct.user.org_id;
  const accounts = s.kernel.app.service('auth.accounts')!;
  const orgs = s.kernel.app.service('auth.orgs')!;
  const call = () => s.request('POST', '/test/verify', { apiKey: key, body: { outcome: 'verified' } });
  t.equal((await call()).headers.get('ratelimit-limit'), '60', 'free');

  // the next read of the organisation returns what it read, but only once released
  let release!: () => void;
  let reading!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const readStarted = new Promise<void>((r) => (reading = r));
  const original = accounts.org.bind(accounts);
  await orgs.setPlan(orgId, 'free'); // drops the cached plan, so the next request reads it
  accounts.org = async (id: string) => {
    accounts.org = original;
    const org = await original(id);
    reading();
    await gate;
    return org;
  };
  const inFlight = call();
  await readStarted;
  await orgs.setPlan(orgId, 'pro');
  release();
  t.equal((await inFlight).status, 200);
  t.equal((await call()).headers.get('ratelimit-limit'), '600', 'the next request has the new plan');
});
