import t, { type Test } from 'tap';
import health from '../../plugins/health/index.js';
import { Accounts, createAuthPlugin } from '../../plugins/auth/index.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import { PgStore } from '../../core/store/pg.js';
import type { Collection, Store } from '../../core/store/store.js';
import { startServer } from '../helpers/server.js';
import { createTestDatabase, freshSchema, pgUnavailable } from '../helpers/pg.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Sign-up claims the email, then the organisation name, as store keys (the uniqueness indexes).
 * A name the store cannot hold as a key was a 500 after the email was claimed, and that email could
 * never sign up again (every later attempt: 409, with no user behind the claim).
 */
const body = (email: string, organization_name: string) => ({ email, password: 'correct horse battery', organization_name });

async function probe(t: Test, store?: (dir: string) => Store) {
  const s = await startServer({ plugins: [health, createAuthPlugin()], config: { auth: { anonymous_rate_per_minute: 1000 } }, store });
  t.teardown(() => s.close());
  // U+FDFA is one character that NFKC turns into eighteen: 128 of them are 4,224 bytes of key
  for (const [what, name] of [
    ['a name NFKC expands past what a key may hold', '\uFDFA'.repeat(128)],
    ['a name with NUL', 'Acme\u0000Corp'],
  ]) {
    const r = await s.request('POST', '/auth/signup', { body: body('first@example.com', name) });
    t.equal(r.status, 400, `${what}: 400, not 500`);
    t.equal(r.body.errors?.[0]?.field, '/body/organization_name', what);
  }
  const again = await s.request('POST', '/auth/signup', { body: body('first@example.com', 'Acme') });
  t.equal(again.status, 201, 'the email is still free');
  const arabic = await s.request('POST', '/auth/signup', { body: body('second@example.com', '\uFDFA'.repeat(20)) });
  t.equal(arabic.status, 201, 'a name that stays within bounds once normalised is accepted');
}

t.test('LMDB: names the index cannot hold are 400 and claim nothing', (t) => probe(t));

t.test('PostgreSQL: names the index cannot hold are 400 and claim nothing', async (t) => {
  const why = await pgUnavailable();
  if (why) return t.comment(`skipped: ${why}`);
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  await probe(t, () => new PgStore({ url: db.url, schema: freshSchema() }));
});

t.test('a sign-up failing after its email is claimed gives the claim back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'signup-claims-'));
  const inner = new LmdbStore(dir);
  t.teardown(async () => {
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let failNames = true;
  // a store that fails the organisation-name claim once, as a lost connection would
  const store: Store = Object.create(inner, {
    collection: {
      value<T>(name: string): Collection<T> {
        const c = inner.collection<T>(name);
        if (name !== 'auth.org_names') return c;
        return Object.create(c, {
          insert: {
            value: async (k: string, v: T) => {
              if (failNames) throw new Error('connection lost');
              return c.insert(k, v);
            },
          },
        });
      },
    },
  });
  const accounts = new Accounts(store);
  await t.rejects(accounts.signup('claimed@example.com', 'correct horse battery', 'Org one'), /connection lost/);
  failNames = false;
  const user = await accounts.signup('claimed@example.com', 'correct horse battery', 'Org one');
  t.ok(user, 'the same email and name sign up once the store answers');
  t.equal(user && (await accounts.userByEmail('claimed@example.com')), user?.id);
});
