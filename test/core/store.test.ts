import t from 'tap';
import pg from 'pg';
import { LmdbStore } from '../../core/store/lmdb.js';
import { PgStore } from '../../core/store/pg.js';
import type { Codec, Store } from '../../core/store/store.js';
import { createTestDatabase, freshSchema, pgUnavailable } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The store contract, run against every backend: LMDB (a temporary directory per store) and
 * PostgreSQL (a fresh database for this run, a schema per store, dropped at the end).
 */
interface Backend {
  name: string;
  /** a new empty store; `reopen` opens the same data again */
  fresh(): { open(): Store };
}

const backends: Backend[] = [
  {
    name: 'lmdb',
    fresh() {
      const dir = tempDir(t, 'pg-store-');
      return { open: () => new LmdbStore(dir) };
    },
  },
];

const why = await pgUnavailable();
if (why) {
  t.comment(`PostgreSQL backend not tested: ${why}`);
} else {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  backends.push({
    name: 'postgres',
    fresh() {
      const schema = freshSchema();
      return { open: () => new PgStore({ url: db.url, schema }) };
    },
  });
}

// values laid out differently on disk (raw bytes, arrays), as the audit and attestation codecs do
const hashCodec: Codec<{ id: string; hash: string }> = {
  encode: (v, key) => (v.id === key ? [1, Buffer.from(v.hash, 'hex')] : v),
  decode: (s, key) => (Array.isArray(s) && s[0] === 1 ? { id: key, hash: Buffer.from(s[1] as Uint8Array).toString('hex') } : (s as { id: string; hash: string })),
};
const CODECS = { 'codec.test': hashCodec as Codec };

for (const b of backends) {
  t.test(b.name, async (t) => {
    const open = () => {
      const s = b.fresh().open();
      t.teardown(() => s.close());
      return s;
    };

    t.test('put/get/delete and durability across reopen', async (t) => {
      const data = b.fresh();
      const s = data.open();
      const c = s.collection<{ n: number }>('things');
      await c.put('a', { n: 1 });
      t.same(await c.get('a'), { n: 1 });
      t.equal(await c.get('missing'), undefined);
      await s.close();
      t.notOk(s.ready, 'not ready once closed');
      const s2 = data.open();
      t.same(await s2.collection<{ n: number }>('things').get('a'), { n: 1 }, 'survives a reopen');
      t.equal(await s2.collection('things').delete('a'), true);
      t.equal(await s2.collection('things').delete('a'), false);
      await s2.close();
    });

    t.test('insert writes only when absent, even when raced', async (t) => {
      const c = open().collection<string>('seq');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => c.insert('k', `v${i}`)));
      t.equal(results.filter(Boolean).length, 1, 'exactly one writer wins');
      const winner = results.indexOf(true);
      t.equal(await c.get('k'), `v${winner}`);
    });

    t.test('update is an atomic read-modify-write', async (t) => {
      const c = open().collection<number>('counter');
      await Promise.all(Array.from({ length: 50 }, () => c.update('n', (v) => (v ?? 0) + 1)));
      t.equal(await c.get('n'), 50);
      t.equal(await c.update('n', () => undefined), 50, 'undefined leaves the value');
      t.equal(await c.update('absent', () => undefined), undefined, 'nothing created');
      t.equal(await c.get('absent'), undefined);
      await t.rejects(c.update('n', () => {
        throw new Error('boom');
      }), /boom/);
      t.equal(await c.get('n'), 50, 'a throwing fn writes nothing');
    });

    t.test('list: prefix, bounds, reverse, limit and count', async (t) => {
      const c = open().collection<number>('log');
      for (const org of ['a', 'b']) for (let i = 1; i <= 5; i++) await c.put(`${org}/${String(i).padStart(4, '0')}`, i);
      await c.put('ab', 99);
      await c.put('a/\u00e9', 7);
      await c.put('a/~', 8);
      const keys = async (o: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
      t.same(await keys({ prefix: 'a/' }), ['a/0001', 'a/0002', 'a/0003', 'a/0004', 'a/0005', 'a/~', 'a/\u00e9'], 'code point order');
      t.same(await keys({ prefix: 'a/', reverse: true, limit: 2 }), ['a/\u00e9', 'a/~']);
      t.same(await keys({ prefix: 'b/', start: 'b/0003' }), ['b/0003', 'b/0004', 'b/0005']);
      t.same(await keys({ prefix: 'b/', end: 'b/0003', reverse: true }), ['b/0002', 'b/0001']);
      t.same(await keys({ prefix: 'b/', start: 'b/0002', end: 'b/0004', reverse: true }), ['b/0003', 'b/0002']);
      t.same(await keys({ prefix: 'b/', start: 'a', limit: 1 }), ['b/0001'], 'a start before the prefix is the prefix');
      t.same(await keys({ prefix: 'a/', end: 'zzz' }), await keys({ prefix: 'a/' }), 'an end past the prefix stops at the prefix');
      t.same(await keys({ start: 'a/0005', end: 'b/0002' }), ['a/0005', 'a/~', 'a/\u00e9', 'ab', 'b/0001']);
      t.same(await keys({ prefix: 'zz' }), []);
      t.same(await keys({ prefix: 'a/', start: 'a/0002\u0000', limit: 2 }), ['a/0003', 'a/0004'], 'paginating after a key');
      t.same(await keys({ prefix: 'a/', end: 'a/0002\u0000' }), ['a/0001', 'a/0002']);
      t.same(await keys({ prefix: 'a/\u0000' }), []);
      t.equal(await c.get('a/0001\u0000'), undefined);
      t.equal(await c.count({ prefix: 'a/' }), 7);
      t.equal(await c.count(), 13);
    });

    t.test('commit: all or nothing, ifAbsent checked against the state before the commit', async (t) => {
      const s = open();
      const a = s.collection<number>('ca');
      const b = s.collection<string>('cb');
      await a.put('taken', 1);
      await b.put('gone', 'x');
      t.equal(await s.commit([]), true);
      t.equal(
        await s.commit([
          { collection: 'ca', key: 'new', value: 2, ifAbsent: true },
          { collection: 'cb', key: 'w', value: 'written' },
          { collection: 'cb', key: 'gone' },
        ]),
        true,
      );
      t.equal(await a.get('new'), 2);
      t.equal(await b.get('w'), 'written');
      t.equal(await b.get('gone'), undefined, 'a value-less op deletes');
      t.equal(
        await s.commit([
          { collection: 'cb', key: 'w', value: 'overwritten' },
          { collection: 'ca', key: 'fresh', value: 3, ifAbsent: true },
          { collection: 'ca', key: 'taken', value: 4, ifAbsent: true },
        ]),
        false,
        'one existing ifAbsent key fails the commit',
      );
      t.equal(await b.get('w'), 'written', 'nothing of the failed commit is written');
      t.equal(await a.get('fresh'), undefined);
      t.equal(await a.get('taken'), 1);
      t.equal(
        await s.commit([
          { collection: 'ca', key: 'k', value: 1 },
          { collection: 'ca', key: 'k', value: 2 },
        ]),
        true,
      );
      t.equal(await a.get('k'), 2, 'the last write of a key wins');
    });

    t.test('commit races: exactly one of many batches claiming the same position wins', async (t) => {
      const s = open();
      const res = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          s.commit([
            { collection: 'race', key: 'p/0001', value: i, ifAbsent: true },
            { collection: 'race', key: 'p/0002', value: i, ifAbsent: true },
            { collection: 'race.side', key: `w${i}`, value: i },
          ]),
        ),
      );
      t.equal(res.filter(Boolean).length, 1);
      const w = res.indexOf(true);
      t.same(
        (await s.collection('race').list()).map((e) => e.value),
        [w, w],
      );
      t.same(
        (await s.collection('race.side').list()).map((e) => e.key),
        [`w${w}`],
        'the losers wrote nothing',
      );
    });

    t.test('codecs apply to every read and write path', async (t) => {
      const data = b.fresh();
      const s = data.open();
      t.teardown(() => s.close());
      s.useCodecs(CODECS);
      const c = s.collection<{ id: string; hash: string }>('codec.test');
      const h = 'ab'.repeat(32);
      await c.put('x', { id: 'x', hash: h });
      t.same(await c.get('x'), { id: 'x', hash: h });
      t.equal(await c.insert('y', { id: 'y', hash: h }), true);
      t.equal(await s.commit([{ collection: 'codec.test', key: 'z', value: { id: 'z', hash: h }, ifAbsent: true }]), true);
      await c.update('x', (v) => ({ ...v!, hash: 'cd'.repeat(32) }));
      t.same(
        (await c.list()).map((e) => e.value),
        [
          { id: 'x', hash: 'cd'.repeat(32) },
          { id: 'y', hash: h },
          { id: 'z', hash: h },
        ],
      );
      const st = (await s.stats()).find((x) => x.name === 'codec.test');
      t.equal(st?.entries, 3);
      t.ok(st!.bytes === null || st!.bytes > 0);
      await s.close();
      // the layout is the codec's: a store not given it reads what is on disk
      const raw = data.open();
      t.teardown(() => raw.close());
      await raw.whenOpen?.();
      const stored = await raw.collection<unknown>('codec.test').get('y');
      t.ok(Array.isArray(stored) && (stored as unknown[])[0] === 1, 'stored in the codec layout');
    });

    t.test('a store keeps one codec per collection; none is global', async (t) => {
      const s = open();
      s.useCodecs(CODECS);
      s.useCodecs(CODECS);
      t.throws(() => s.useCodecs({ 'codec.test': { ...hashCodec } as Codec }), /already has another codec/, 'a second layout for the collection is refused');
      t.throws(() => s.useCodecs({ other: { encode: (v: unknown) => v } as unknown as Codec }), /needs encode and decode/);
      const other = open();
      const h = 'ef'.repeat(32);
      await other.collection('codec.test').put('x', { id: 'x', hash: h });
      t.same(await other.collection('codec.test').get('x'), { id: 'x', hash: h }, 'a store given no codec stores values as they are');
    });

    t.test('collection names and keys are checked', async (t) => {
      const s = open();
      t.throws(() => s.collection('Bad Name'));
      if (b.name === 'postgres') await t.rejects(s.collection('ok').put('a\0b', 1), TypeError);
    });
  });
}

if (!why) {
  t.test('postgres: replicas starting together migrate once, versions recorded', async (t) => {
    const db = await createTestDatabase();
    t.teardown(() => db.drop());
    const schema = freshSchema();
    const stores = Array.from({ length: 4 }, () => new PgStore({ url: db.url, schema, max: 2 }));
    await Promise.all(stores.map((s) => s.whenOpen()));
    t.ok(stores.every((s) => s.ready));
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const rows = (await c.query(`SELECT version FROM "${schema}".migrations ORDER BY version`)).rows;
    await c.end();
    t.same(
      rows.map((r) => r.version),
      [1],
    );
    await Promise.all(stores.map((s) => s.close()));
  });

  t.test('postgres: a connection killed mid-transaction rejects that operation, the process and the store carry on', async (t) => {
    const db = await createTestDatabase();
    t.teardown(() => db.drop());
    const s = new PgStore({ url: db.url, schema: freshSchema() });
    t.teardown(() => s.close());
    await s.collection('c').put('k', 1);
    // the rejection is watched from the start: it may land while the kill below is still being
    // confirmed, and a rejection nobody watches yet is reported as unhandled
    const rejected = t.rejects(
      s.transaction((c) => c.query("SELECT pg_sleep(30) AS marker_for_kill")),
      /terminat/i,
    );
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    t.teardown(() => admin.end());
    // only this test's database: the PostgreSQL server is shared with other runs of this same test
    const killed = await waitFor(
      async () =>
        (await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%marker_for_kill%' AND pid <> pg_backend_pid()")).rowCount,
      { what: 'the marked backend to be running', timeoutMs: 15_000 },
    );
    t.equal(killed, 1, 'the backend was terminated');
    await rejected;
    t.equal(await s.collection('c').get('k'), 1, 'the next operation gets a fresh connection');
  });

  t.test('postgres: not ready while the server does not answer; operations wait (bounded), then fail clearly', async (t) => {
    const errors: string[] = [];
    const s = new PgStore({ url: 'postgres://postgres@127.0.0.1:1/none', openTimeoutMs: 300, onError: (e) => errors.push(e.message) });
    t.teardown(() => s.close());
    t.notOk(s.ready);
    await t.rejects(s.collection('x').get('k'), /PostgreSQL store unavailable/);
    t.ok(errors.length >= 1, 'the failure is reported');
    t.notOk(s.ready, 'still not ready');
  });
}
