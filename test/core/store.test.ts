import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '../../core/store-lmdb.js';

const dir = mkdtempSync(join(tmpdir(), 'pg-store-'));

t.test('put/get/delete and durability across reopen', async (t) => {
  const s = new LmdbStore(dir);
  const c = s.collection<{ n: number }>('things');
  await c.put('a', { n: 1 });
  t.same(await c.get('a'), { n: 1 });
  t.equal(await c.get('missing'), undefined);
  await s.close();
  const s2 = new LmdbStore(dir);
  t.same(await s2.collection<{ n: number }>('things').get('a'), { n: 1 }, 'survives a reopen');
  t.equal(await s2.collection('things').delete('a'), true);
  t.equal(await s2.collection('things').delete('a'), false);
  await s2.close();
});

t.test('insert writes only when absent, even when raced', async (t) => {
  const s = new LmdbStore(mkdtempSync(join(tmpdir(), 'pg-store-')));
  t.teardown(() => s.close());
  const c = s.collection<string>('seq');
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => c.insert('k', `v${i}`)));
  t.equal(results.filter(Boolean).length, 1, 'exactly one writer wins');
  const winner = results.indexOf(true);
  t.equal(await c.get('k'), `v${winner}`);
});

t.test('update is an atomic read-modify-write', async (t) => {
  const s = new LmdbStore(mkdtempSync(join(tmpdir(), 'pg-store-')));
  t.teardown(() => s.close());
  const c = s.collection<number>('counter');
  await Promise.all(Array.from({ length: 50 }, () => c.update('n', (v) => (v ?? 0) + 1)));
  t.equal(await c.get('n'), 50);
  t.equal(await c.update('n', () => undefined), 50, 'undefined leaves the value');
});

t.test('list: prefix, bounds, reverse, limit and count', async (t) => {
  const s = new LmdbStore(mkdtempSync(join(tmpdir(), 'pg-store-')));
  t.teardown(() => s.close());
  const c = s.collection<number>('log');
  for (const org of ['a', 'b']) for (let i = 1; i <= 5; i++) await c.put(`${org}/${String(i).padStart(4, '0')}`, i);
  await c.put('ab', 99);
  const keys = async (o: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
  t.same(await keys({ prefix: 'a/' }), ['a/0001', 'a/0002', 'a/0003', 'a/0004', 'a/0005']);
  t.same(await keys({ prefix: 'a/', reverse: true, limit: 2 }), ['a/0005', 'a/0004']);
  t.same(await keys({ prefix: 'b/', start: 'b/0003' }), ['b/0003', 'b/0004', 'b/0005']);
  t.same(await keys({ prefix: 'b/', end: 'b/0003', reverse: true }), ['b/0002', 'b/0001']);
  t.same(await keys({ prefix: 'b/', start: 'b/0002', end: 'b/0004', reverse: true }), ['b/0003', 'b/0002']);
  t.equal(await c.count({ prefix: 'a/' }), 5);
  t.equal(await c.count(), 11);
});

t.test('collection names are checked', async (t) => {
  const s = new LmdbStore(mkdtempSync(join(tmpdir(), 'pg-store-')));
  t.teardown(() => s.close());
  t.throws(() => s.collection('Bad Name'));
});
