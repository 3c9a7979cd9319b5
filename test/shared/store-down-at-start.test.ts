import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import health from '../../plugins/health/index.js';
import attestation from '../../plugins/attestation/index.js';
import { PgStore } from '../../core/store/pg.js';
import { freshSchema, testDatabase, type TestDatabase } from '../helpers/pg.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { pgRelay } from '../helpers/pg-relay.js';

/**
 * A replica whose PostgreSQL does not answer at start-up for longer than a request would wait for
 * it (openTimeoutMs, 30 s in production). The attestation plugin records its key's first-seen time
 * in the store as it registers; that write gave up with the request bound, start-up failed and the
 * process exited — a restart loop, where docs/operations.md promises a live, not ready, replica that
 * keeps retrying.
 */
const db = await testDatabase(t);
if (db) await run(db);

async function run(db: TestDatabase) {

  t.test('start-up waits for a store that answers only after the open timeout', async (t) => {
    const relay = await pgRelay(t, db.url, { open: false });

    let attempts = 0;
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    let failed: Error | null = null;
    const starting = startServer({
      plugins: [health, attestation],
      config: { attestation: { key_continuity_policy: 'persistent', signing_key_pem: pem } },
      // a request would wait 150 ms for the store; start-up must not be held to that
      store: () => new PgStore({ url: relay.url, schema: freshSchema(), openTimeoutMs: 150, onError: () => void attempts++ }),
    });
    starting.catch((err: Error) => (failed = err));
    // the store retries after 100, 200, 400, 800 ms: five refusals are well past the 150 ms bound
    await waitFor(() => attempts >= 5 || failed !== null, { what: 'the store to be refused five times', timeoutMs: 60_000, everyMs: 20 });
    t.equal(failed, null, 'start-up is still waiting, not failed');

    relay.setOpen(true);
    const s: TestServer = await starting;
    t.teardown(() => s.close());
    await waitFor(() => s.kernel.isReady(), { what: 'the kernel to be ready once the store answers', timeoutMs: 60_000, everyMs: 20 });
    const id = await s.request('GET', '/health/identity');
    t.equal(id.status, 200);
    t.equal(id.body.attestation.key_continuity_policy, 'persistent', 'the key was loaded and its first-seen time recorded');
  });
}
