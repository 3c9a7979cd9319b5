import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PgStore } from '../../core/store/pg.js';
import { AuditChain, AUDIT_COLLECTION, walkChains, type AuditEntry, type AuditFields } from '../../plugins/audit/index.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { createTestDatabase, freshSchema, pgUnavailable } from '../helpers/pg.js';
import { nodeCommand } from '../helpers/child.js';
import { AUDIT_CODECS } from '../../plugins/audit/compact.js';

/**
 * The audit chain's group commit on the shared PostgreSQL store: writers with their own head
 * caches (separate pools, separate processes) append to one organisation at once; the chain must
 * stay one strict line (insert-if-absent of every position in one transaction, reseal on a race).
 */
const SECRET = TEST_SECRETS.audit_secret_key;
const CHILD = fileURLToPath(new URL('./fixtures/append-child-pg.js', import.meta.url));
const fields = (i: number, key = 'key_1'): AuditFields => ({
  route: '/verify/math',
  method: 'POST',
  key_id: key,
  user_id: 'usr_1',
  request_hash: null,
  status: 'verified',
  engine: 'math',
  http_status: 200,
  proof_ref: null,
  constraint_id: null,
  raw_llm_output: `output ${i}`,
});

const why = await pgUnavailable();
if (why) {
  t.comment(`skipped: ${why}`);
} else {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  /** two stores on one fresh schema, as two replicas (`max`: each one's pool size) */
  const replicas = (t: Test, max?: number): [PgStore, PgStore] => {
    const schema = freshSchema();
    const s = [new PgStore({ url: db.url, schema, max, codecs: AUDIT_CODECS }), new PgStore({ url: db.url, schema, max, codecs: AUDIT_CODECS })] as [PgStore, PgStore];
    t.teardown(async () => {
      await s[0].close();
      await s[1].close();
    });
    return s;
  };

  t.test('two stores (two pools) appending at once: one chain, no gaps, races resealed', async (t) => {
    const [s1, s2] = replicas(t);
    const a = new AuditChain(s1, SECRET);
    const b = new AuditChain(s2, SECRET);
    const entries = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).append(i % 3 ? 'org_a' : 'org_b', fields(i))));
    const seqA = entries.filter((e) => e.org_id === 'org_a').map((e) => e.seq).sort((x, y) => x - y);
    t.same(seqA, Array.from({ length: seqA.length }, (_, i) => i), 'no gaps, no duplicates');
    // each writer's cached head is stale for the other's appends
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).append('org_a', fields(i));
    t.ok(a.stats.races + b.stats.races > 0, 'the stale writer lost races and resealed');
    const walk = await walkChains(s1.collection(AUDIT_COLLECTION), SECRET);
    t.equal(walk.broken, null);
    t.equal(walk.entries, 210);
  });

  t.test('sustained appends from two writers: the one with the stale head is not starved', async (t) => {
    const [s1, s2] = replicas(t);
    const chains = [new AuditChain(s1, SECRET), new AuditChain(s2, SECRET)];
    // each writer keeps 128 appends in flight until it has written 5000: the winner of a race always
    // has work queued, so without the kept lock the loser re-reads, loses again, and gives up
    const perWriter = 15000;
    await Promise.all(
      chains.map(async (chain, w) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: 128 }, async () => {
            while (next < perWriter) {
              next++;
              await chain.append('org_busy', fields(next, `key_${w}`));
            }
          }),
        );
      }),
    );
    t.ok(chains[0].stats.races + chains[1].stats.races > 0, 'the writers did race');
    const walk = await walkChains(s1.collection(AUDIT_COLLECTION), SECRET, { orgId: 'org_busy' });
    t.equal(walk.broken, null);
    t.equal(walk.entries, 2 * perWriter);
  });

  t.test('two writers contending on many organisations at once: every chain complete and valid', async (t) => {
    const [s1, s2] = replicas(t);
    const chains = [new AuditChain(s1, SECRET), new AuditChain(s2, SECRET)];
    // more contended organisations than connections a store may keep for its retries
    const orgs = Array.from({ length: 12 }, (_, i) => `org_many_${i}`);
    await Promise.all(
      chains.flatMap((chain) => orgs.map(async (org) => {
        for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 8 }, (_, i) => chain.append(org, fields(round * 8 + i))));
      })),
    );
    const walk = await walkChains(s1.collection(AUDIT_COLLECTION), SECRET);
    t.equal(walk.broken, null);
    t.equal(walk.orgs, orgs.length);
    t.equal(walk.entries, orgs.length * 2 * 80);
    t.same([s1.keptChains.expired, s2.keptChains.expired], [0, 0], 'every kept chain was retried, none waited out its hold');
  });

  t.test('pools taken whole by kept chains: each loser re-reads over its kept connection, and no chain waits out its hold', async (t) => {
    // four connections each, all of which the committer may keep: a head re-read through the pool
    // would find none free while the other store's queued commits wait (in PostgreSQL) on chains
    // that store keeps, and both would stall until the hold timed out (2 s), again and again
    const [s1, s2] = replicas(t, 4);
    const chains = [new AuditChain(s1, SECRET), new AuditChain(s2, SECRET)];
    const orgs = Array.from({ length: 8 }, (_, i) => `org_small_${i}`);
    await Promise.all(
      chains.flatMap((chain, w) => orgs.map(async (org) => {
        for (let round = 0; round < 6; round++) await Promise.all(Array.from({ length: 4 }, (_, i) => chain.append(org, fields(round * 4 + i, `key_${w}`))));
      })),
    );
    const kept = s1.keptChains.kept + s2.keptChains.kept;
    t.ok(kept > 0, `races were lost and chains kept for their retries (${kept})`);
    t.same([s1.keptChains.expired, s2.keptChains.expired], [0, 0], 'no kept chain was given up for want of its retry');
    const walk = await walkChains(s1.collection(AUDIT_COLLECTION), SECRET);
    t.equal(walk.broken, null);
    t.equal(walk.entries, orgs.length * 2 * 24);
  });

  t.test('two processes appending to one organisation leave one valid chain', async (t) => {
    const schema = freshSchema();
    const run = (tag: string) =>
      new Promise<{ out: string; code: number | null }>((resolve, reject) => {
        const child = spawn(...nodeCommand([CHILD, db.url, schema, SECRET, '600', '50', tag]), { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.once('error', reject);
        child.once('exit', (code) => resolve({ out, code }));
      });
    const [a, b] = await Promise.all([run('a'), run('b')]);
    t.equal(a.code, 0, a.out);
    t.equal(b.code, 0, b.out);
    const store = new PgStore({ url: db.url, schema, codecs: AUDIT_CODECS });
    t.teardown(() => store.close());
    const byKey = new Map<string, number>();
    const walk = await walkChains(store.collection(AUDIT_COLLECTION), SECRET, {
      onEntry: (e: AuditEntry) => byKey.set(e.key_id!, (byKey.get(e.key_id!) ?? 0) + 1),
    });
    t.equal(walk.broken, null, 'one strict chain');
    t.equal(walk.orgs, 1);
    t.equal(walk.entries, 1200, 'every append of both processes is in it');
    t.same(Object.fromEntries(byKey), { key_a: 600, key_b: 600 });
  });
}
