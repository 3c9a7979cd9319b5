import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { orderPlugins } from '../../core/plugin/order.js';
import type { Plugin, PluginManifest, Verifier } from '../../core/types.js';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { nodeCommand } from '../helpers/child.js';
import { startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The plugin contract of issue 44: a service key decides its type (the caller never names one), a
 * plugin looks up only what its manifest declares, and the kernel orders plugins from their needs,
 * refusing to start on a missing provider or a circle.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const noop = () => undefined;
const p = (name: string, m: PluginManifest = {}, register: Plugin['register'] = noop): Plugin => ({ name, ...m, register });
const names = (list: Plugin[]) => list.map((x) => x.name);
const stub: Verifier = { verify: async () => ({ status: 'UNVERIFIABLE' }) as never };

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
    const f = join(dir, e);
    if (statSync(f).isDirectory()) sources(f, out);
    else if (/\.(ts|mjs|md)$/.test(e) && !e.endsWith('.d.ts')) out.push(f);
  }
  return out;
}

t.test('no service look-up or provision with a type argument the caller picks', async (t) => {
  // docs too: an example in a page is what a plugin author copies
  const files = ['core', 'plugins', 'sidecar', 'test', 'bench', 'docs'].flatMap((d) => sources(join(ROOT, d)));
  t.ok(files.length > 300, 'the sources are found');
  const found = files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, at: `${f.slice(ROOT.length)}:${i + 1}` }))
      // written so that this file's own pattern is not a hit
      .filter(({ line }) => new RegExp('\\.(service|provide)\\s*' + '<').test(line))
      .map(({ at }) => at),
  );
  t.same(found, []);
});

t.test('order: providers of needs and optional keys first, the list order otherwise', async (t) => {
  const user = p('user', { needs: ['verifier.a'], optional: ['verifier.b'] });
  const a = p('a', { provides: ['verifier.a'] });
  const b = p('b', { provides: ['verifier.b'] });
  const free = p('free');
  t.same(names(orderPlugins([free, user, b, a])), ['free', 'b', 'a', 'user'], 'stable where the needs allow');
  t.same(names(orderPlugins([a, b, free, user])), ['a', 'b', 'free', 'user'], 'an ordered list stays as it is');
  t.same(names(orderPlugins([user, a])), ['a', 'user'], 'an optional key nobody provides orders nothing');
  const late = p('late', { late: ['verifier.a', 'verifier.*'] });
  t.same(names(orderPlugins([late, a])), ['late', 'a'], 'a late key does not order');
  t.same(names(orderPlugins([p('k', { needs: ['jwks.published'] })], new Set(['jwks.published']))), ['k'], "the kernel's own keys need no plugin");
});

t.test('order: a missing provider, two providers, a circle stop start-up naming them', async (t) => {
  t.throws(() => orderPlugins([p('user', { needs: ['verifier.a'] })]), /plugin user needs the service verifier\.a, which no enabled plugin provides/);
  t.throws(() => orderPlugins([p('a', { provides: ['verifier.a'] }), p('b', { provides: ['verifier.a'] })]), /plugins a and b both provide the service verifier\.a/);
  const a = p('a', { provides: ['verifier.a'], needs: ['verifier.b'] });
  const b = p('b', { provides: ['verifier.b'], optional: ['verifier.a'] });
  t.throws(() => orderPlugins([p('free'), a, b]), /in a circle: a → b → a/);
  t.same(names(orderPlugins([p('self', { provides: ['verifier.s'], needs: ['verifier.s'] })])), ['self'], 'a plugin may need its own key');
});

t.test('the built-ins: their order is the list, and their needs hold whatever the list order', async (t) => {
  const loaded: Plugin[] = [];
  for (const e of builtinPlugins) loaded.push('load' in e ? await e.load() : e);
  const kernel = new Set(['jwks.published']);
  t.same(names(orderPlugins(loaded, kernel)), names(loaded), 'the list is already in an order the needs allow');
  const reversed = orderPlugins([...loaded].reverse(), kernel);
  const at = (n: string) => names(reversed).indexOf(n);
  // the documented orders (hooks run in registration order) hold without the list's help
  t.ok(at('auth') < at('agents'), 'agents after auth: its tokens are digested by auth.keys');
  t.ok(at('attestation') < at('audit'), 'audit after attestation: its onReply records the attestation');
  t.ok(at('providers') < at('logic') && at('providers') < at('natural-language'), 'the translator before the engines that translate');
  t.ok(at('a2a') < at('mcp'), 'mcp after a2a: the verdict signer');
  t.ok(at('provision-config') < at('auth') && at('provision-config') < at('a2a'), 'the bootstrap file amends the settings auth and a2a read');
  t.ok(at('provision') > at('auth') && at('provision') > at('agents') && at('provision') > at('a2a'), 'its objects are written once every owner registered');
  for (const x of reversed) {
    for (const key of [...(x.needs ?? []), ...(x.optional ?? [])]) {
      const by = reversed.find((y) => y.provides?.includes(key));
      if (by && by !== x) t.ok(at(by.name) < at(x.name), `${by.name} (${key}) before ${x.name}`);
    }
  }
});

const provider = p('seam-provider', { provides: ['verifier.seam'] }, (app) => app.provide('verifier.seam', stub));

t.test('a look-up the manifest does not declare throws under strictServices (tests)', async (t) => {
  const snoop = p('seam-snoop', {}, (app) => void app.service('verifier.seam'));
  await t.rejects(startServer({ plugins: [provider, snoop] }), /plugin seam-snoop looks up the service verifier\.seam without declaring it/);
  const declared = p('seam-user', { needs: ['verifier.seam'] }, (app) => {
    if (app.service('verifier.seam') !== stub) throw new Error('not the provided service');
  });
  const s = await startServer({ plugins: [declared, provider] });
  t.teardown(() => s.close());
  t.pass('declared, it is answered, and its provider registered first');
});

t.test('without strictServices an undeclared look-up is answered (a missed declaration never fails a request)', async (t) => {
  let got: unknown;
  const snoop = p('seam-snoop', {}, (app) => void (got = app.service('verifier.seam')));
  const s = await startServer({ plugins: [provider, snoop], strictServices: false });
  t.teardown(() => s.close());
  t.equal(got, stub);
});

t.test('providing a key the manifest does not list stops start-up', async (t) => {
  const sneaky = p('seam-sneaky', {}, (app) => app.provide('verifier.seam', stub));
  await t.rejects(startServer({ plugins: [sneaky] }), /plugin seam-sneaky provides the service verifier\.seam without declaring it/);
});

t.test('a missing provider and a circle stop the kernel before any plugin registers', async (t) => {
  let registered = false;
  const mark = p('seam-mark', {}, () => void (registered = true));
  await t.rejects(startServer({ plugins: [mark, p('seam-user', { needs: ['verifier.seam'] })] }), /seam-user needs the service verifier\.seam/);
  const a = p('seam-a', { provides: ['verifier.a'], needs: ['verifier.b'] });
  const b = p('seam-b', { provides: ['verifier.b'], needs: ['verifier.a'] });
  await t.rejects(startServer({ plugins: [mark, a, b] }), /circle: seam-a → seam-b → seam-a/);
  t.notOk(registered, 'nothing registered');
});

t.test('proofgate start names a missing provider and exits 78, like any configuration error', async (t) => {
  const dir = tempDir(t, 'pg-contract-');
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));
  const r = spawnSync(...nodeCommand([CLI, 'start']), {
    cwd: dir,
    encoding: 'utf8',
    env: { ...cleanEnv, SVC_PORT: '0', SVC_LOG_LEVEL: 'ERROR', SVC_PLUGINS_DISABLED: 'auth' },
    timeout: 60_000,
  });
  t.equal(r.status, 78, r.stderr);
  t.match(r.stderr, /cannot start: plugin agents needs the service auth\.keys, which no enabled plugin provides/);
});

t.test('a malformed manifest from a plain-JavaScript plugin is refused by name, never searched as a string', async (t) => {
  const bad = [
    { provides: 'verifier.seam' },
    { needs: ['verifier.*'] },
    { optional: [42] },
    { late: ['../../etc'] },
    { provides: Array.from({ length: 300 }, (_, i) => `verifier.k${i}`) },
  ];
  for (const m of bad) {
    const plugin = { name: 'seam-bad', ...m, register: noop } as unknown as Plugin;
    await t.rejects(startServer({ plugins: [plugin] }), /built-in seam-bad: manifest field (provides|needs|optional|late) must be a list of service keys/, JSON.stringify(m).slice(0, 60));
  }
  const family = p('seam-family', { late: ['verifier.*'] }, noop);
  const s = await startServer({ plugins: [family] });
  t.teardown(() => s.close());
  t.pass('a family is accepted in late');
});
