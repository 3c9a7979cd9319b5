import t from 'tap';
import type { Codec } from '../../core/store/store.js';
import type { App, Plugin } from '../../core/types.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import { startServer } from '../helpers/server.js';

/**
 * Collections are declared with their codecs in the manifest of the plugin that owns them; the
 * kernel hands them to the store before any plugin registers. No module-global table.
 */
const boxed: Codec<{ n: number }> = {
  encode: (v) => ['boxed', v.n],
  decode: (s) => (Array.isArray(s) && s[0] === 'boxed' ? { n: s[1] as number } : (s as { n: number })),
};

function owner(name: string, seen: { app?: App } = {}, codec: Codec = boxed as Codec): Plugin {
  return {
    name,
    collections: { 'probe.boxes': codec },
    register(app) {
      seen.app = app;
    },
  };
}

t.test('a declared codec lays the collection out on disk; the plugin sees its values', async (t) => {
  const seen: { app?: App } = {};
  const s = await startServer({ plugins: [owner('probe', seen)], keepData: true });
  await seen.app!.store.collection<{ n: number }>('probe.boxes').put('a', { n: 7 });
  t.same(await seen.app!.store.collection('probe.boxes').get('a'), { n: 7 });
  await s.close();
  // a store opened without the declaration reads the stored layout: the codec came from the manifest
  const raw = new LmdbStore(s.dataDir);
  t.teardown(() => raw.close());
  t.same(await raw.collection('probe.boxes').get('a'), ['boxed', 7]);
});

t.test('two plugins declaring one collection stop start-up, naming both', async (t) => {
  await t.rejects(startServer({ plugins: [owner('probe'), owner('other')] }), /plugins probe and other both declare the collection probe\.boxes/);
  // the same codec object twice is still two owners
  await t.rejects(startServer({ plugins: [owner('probe'), owner('other', {}, boxed as Codec)] }), /both declare/);
});

t.test('a manifest whose collections are not codecs is refused', async (t) => {
  const bad = (collections: unknown): Plugin => ({ name: 'probe', collections, register() {} }) as unknown as Plugin;
  await t.rejects(startServer({ plugins: [bad({ 'probe.x': { encode: () => 1 } })] }), /collections must map collection names to codecs/);
  await t.rejects(startServer({ plugins: [bad({ 'Bad Name': boxed })] }), /collections must map/);
  await t.rejects(startServer({ plugins: [bad(['probe.x'])] }), /collections must map/);
});
