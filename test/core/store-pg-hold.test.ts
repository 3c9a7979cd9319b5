import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { LmdbStore } from '../../core/store/lmdb.js';
import { PgStore } from '../../core/store/pg.js';
import type { CommitOptions, Store, WriteOp } from '../../core/store/store.js';
import { AuditChain, type AuditFields } from '../../plugins/audit/index.js';
import { createTestDatabase, freshSchema, pgUnavailable } from '../helpers/pg.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Who keeps a contested chain on PostgreSQL after a lost insert-if-absent race: only a loser that
 * said it will retry (core/store/pg-commit.ts). Two stores on one schema stand for two replicas;
 * PostgreSQL's own lock table is the witness, so nothing here waits on a clock.
 */
const fields: AuditFields = {
  route: '/verify/math', method: 'POST', key_id: 'key_1', user_id: null, request_hash: null, status: 'verified',
  engine: 'math', http_status: 200, proof_ref: null, constraint_id: null, raw_llm_output: null,
};

t.test('a chain that keeps losing: every attempt but the last asks for the chain to be kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-hold-'));
  const inner = new LmdbStore(dir);
  t.teardown(async () => {
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seen: Array<boolean | undefined> = [];
  // reads reach an empty store; every commit loses its race, as to a replica that is always first
  const losing: Store = {
    ready: true,
    collection: (n) => inner.collection(n),
    stats: () => inner.stats(),
    close: async () => undefined,
    useCodecs: (c) => inner.useCodecs(c),
    async commit(_ops: readonly WriteOp[], opts?: CommitOptions) {
      seen.push(opts?.retryOnConflict);
      return false;
    },
  };
  const chain = new AuditChain(losing, TEST_SECRETS.audit_secret_key, 3);
  await t.rejects(chain.append('org_a', fields), /lost the race too many times/);
  t.same(seen, [true, true, false], 'the last attempt will not retry, so it asks for nothing to be kept');
});

const why = await pgUnavailable();
if (why) {
  t.comment(`PostgreSQL hold tests not run: ${why}`);
} else {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  t.teardown(() => admin.end());
  const advisory = async (granted: boolean) =>
    Number((await admin.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, [granted])).rows[0].n);
  /** two stores on one schema; `bMax`: the second one's pool size */
  const replicas = (bMax?: number) => {
    const schema = freshSchema();
    const a = new PgStore({ url: db.url, schema });
    const b = new PgStore({ url: db.url, schema, max: bMax });
    t.teardown(async () => {
      await a.close();
      await b.close();
    });
    return { a, b };
  };
  const claim = (key: string, by: string): WriteOp[] => [{ collection: 'chain', key, value: by, ifAbsent: true }];

  t.test('a loser that will not retry keeps nothing: the next writer of the chain is not held up', async (t) => {
    const { a, b } = replicas();
    t.equal(await a.commit(claim('org/0001', 'a')), true);
    t.equal(await b.commit(claim('org/0001', 'b')), false);
    t.equal(await advisory(true), 0, 'no advisory lock outlives the losing commit');
    t.equal(await a.commit(claim('org/0002', 'a')), true);
    t.same((await a.collection('chain').list()).map((e) => e.value), ['a', 'a']);
  });

  t.test('a loser that will retry keeps the chain until its retry has landed', async (t) => {
    const { a, b } = replicas();
    t.equal(await a.commit(claim('org/0001', 'a')), true);
    t.equal(await b.commit(claim('org/0001', 'b'), { retryOnConflict: true }), false);
    t.ok((await advisory(true)) > 0, 'the chain is held for the retry');
    // the other replica's next append queues behind the held chain (as its last attempt: it keeps nothing)
    const overtaking = a.commit(claim('org/0002', 'a'));
    await waitFor(async () => (await advisory(false)) > 0, { what: "the other replica's commit waiting on the chain" });
    t.equal(await b.commit(claim('org/0002', 'b'), { retryOnConflict: true }), true, 'the retry lands first');
    t.equal(await overtaking, false, 'the other replica then finds the position taken');
    t.same((await a.collection('chain').list()).map((e) => e.value), ['a', 'b']);
    t.equal(await advisory(true), 0, 'the kept chain is given back once the retry has landed');
  });

  t.test("a loser re-reads its kept chain over the kept connection: its pool's only one", async (t) => {
    const { a, b } = replicas(1);
    t.equal(await a.commit(claim('org/0001', 'a')), true);
    t.equal(await b.commit(claim('org/0001', 'b'), { retryOnConflict: true }), false);
    t.ok((await advisory(true)) > 0, 'the chain is held, on the one connection b has');
    // through the pool this read would wait for that connection until the hold expired (2 s)
    const head = await b.collection('chain').list({ prefix: 'org/', reverse: true, limit: 1 });
    t.same(head.map((e) => [e.key, e.value]), [['org/0001', 'a']], 'the current head');
    t.ok((await advisory(true)) > 0, 'still held for the retry after the read');
    t.equal(await b.commit(claim('org/0002', 'b'), { retryOnConflict: true }), true, 'the retry lands');
    t.equal(await advisory(true), 0);
    t.same(b.keptChains, { kept: 1, expired: 0 });
  });

  t.test("the retry waits for a read that borrowed its kept connection, rather than queue behind its own lock", async (t) => {
    const { a, b } = replicas();
    t.equal(await a.commit(claim('org/0001', 'a')), true);
    t.equal(await b.commit(claim('org/0001', 'b'), { retryOnConflict: true }), false);
    // any read of the chain's prefix borrows the kept connection (an export, say), here at the moment the retry comes
    const [all, retried] = await Promise.all([b.collection('chain').list({ prefix: 'org/' }), b.commit(claim('org/0002', 'b'), { retryOnConflict: true })]);
    t.same(all.map((e) => e.value), ['a']);
    t.equal(retried, true, 'the retry lands');
    t.same(b.keptChains, { kept: 1, expired: 0 }, 'over the kept connection: nothing waited out the hold');
    t.equal(await advisory(true), 0);
  });

  t.test('a kept connection that dies is given up: the re-read goes through the pool and the retry lands', async (t) => {
    const { a, b } = replicas();
    t.equal(await a.commit(claim('org/0001', 'a')), true);
    t.equal(await b.commit(claim('org/0001', 'b'), { retryOnConflict: true }), false);
    const holder = await admin.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
    t.equal(holder.rowCount, 1, 'one connection keeps the chain');
    await admin.query('SELECT pg_terminate_backend($1)', [holder.rows[0].pid]);
    await waitFor(async () => (await advisory(true)) === 0, { what: 'PostgreSQL to drop the killed session and its lock' });
    const head = await b.collection('chain').list({ prefix: 'org/', reverse: true, limit: 1 });
    t.same(head.map((e) => e.value), ['a'], 'the head, read through the pool');
    t.equal(await b.commit(claim('org/0002', 'b'), { retryOnConflict: true }), true, 'the retry lands on a fresh connection');
    t.same((await a.collection('chain').list()).map((e) => e.value), ['a', 'b']);
  });

  t.test('a kept chain whose retry loses again without retrying is given back at once', async (t) => {
    const { a, b } = replicas();
    t.equal(await a.commit(claim('org/0001', 'a')), true);
    t.equal(await b.commit(claim('org/0001', 'b'), { retryOnConflict: true }), false);
    t.ok((await advisory(true)) > 0);
    t.equal(await b.commit(claim('org/0001', 'b')), false, 'the same stale position again, last attempt');
    t.equal(await advisory(true), 0, 'nothing held after the last attempt');
    t.equal(await a.commit(claim('org/0002', 'a')), true);
  });
}
