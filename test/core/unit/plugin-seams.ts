import t from 'tap';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectionOwners, seamViolations, settingsViolations } from '../../helpers/plugin-seams.js';
import { builtinPlugins, builtinSettings } from '../../../sidecar/builtin.js';
import { assembleSchema } from '../../../core/plugin/settings.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The seams of docs/plugins.md ("Layout of a plugin"): a plugin reaches another only through its
 * index.ts and its services, never through its other files or its store collections; every engine
 * plugin has the same file layout.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PLUGINS = join(ROOT, 'plugins');
const ENGINES = join(PLUGINS, 'engines');

t.test('the scanner knows the collections each plugin owns', async (t) => {
  const owners = collectionOwners(PLUGINS);
  t.equal(owners.get('audit.entries'), 'audit');
  t.equal(owners.get('audit.checkpoints'), 'audit');
  t.equal(owners.get('auth.keys'), 'auth');
  t.equal(owners.get('attestations'), 'attestation');
  t.equal(owners.get('mcp.sessions'), 'mcp');
  t.equal(owners.get('batch_jobs'), 'batch');
});

t.test('the scanner finds a reach past index.ts and a read of a foreign collection', async (t) => {
  const dir = tempDir(t, 'pg-seams-');
  mkdirSync(join(dir, 'owner'));
  mkdirSync(join(dir, 'engines', 'thief'), { recursive: true });
  writeFileSync(join(dir, 'owner', 'index.ts'), "export { LEDGER } from './ledger.js';\n");
  writeFileSync(join(dir, 'owner', 'ledger.ts'), "export const LEDGER_COLLECTION = 'owner.ledger';\nexport const LEDGER = LEDGER_COLLECTION;\n");
  writeFileSync(
    join(dir, 'engines', 'thief', 'index.ts'),
    [
      "import { LEDGER_COLLECTION } from '../../owner/ledger.js';",
      "import { LEDGER } from '../../owner/index.js';",
      "export const a = (s: any) => s.collection<unknown>('owner.ledger').list();",
      'export const b = (s: any) => s.collection(LEDGER).get(LEDGER_COLLECTION);',
      "const mine = 'owner.ledger';",
      "export const c = (s: any) => s.commit([{ collection: mine, key: 'k', value: 1 }]);",
      "export const d = (s: any) => s.service('owner.ledger');",
      '',
    ].join('\n'),
  );
  const found = seamViolations(dir).map((v) => `${v.kind}: ${v.detail}`);
  t.ok(found.includes('import: imports owner/ledger.ts, not owner/index'), 'import of a non-index file');
  t.ok(found.includes("collection: names owner's collection 'owner.ledger'"), 'a foreign collection by its name');
  t.ok(found.includes('collection: store call on LEDGER, a collection of owner'), 'a foreign collection through an index export');
  t.ok(found.includes("collection: store call on mine = 'owner.ledger', a collection of owner"), 'a foreign collection behind a local alias');
  t.equal(found.length, 4, 'a service that shares the name is not a store call');
});

t.test('no file in plugins/ imports another plugin’s internals or reads its collections', async (t) => {
  t.same(seamViolations(PLUGINS).map((v) => `${v.file}: ${v.kind}: ${v.detail}`), []);
});

const KERNEL = new Set(Object.keys((JSON.parse(readFileSync(join(ROOT, 'config', 'kernel.schema.json'), 'utf8')) as { properties: object }).properties));

t.test('the scanner finds settings read past their owner, and fragments that collide', async (t) => {
  const dir = tempDir(t, 'pg-seams-settings-');
  mkdirSync(join(dir, 'owner'));
  mkdirSync(join(dir, 'reader'));
  writeFileSync(join(dir, 'owner', 'index.ts'), "export { ownerSettings } from './settings.js';\n");
  writeFileSync(join(dir, 'owner', 'settings.ts'), "export const ownerSettings = defineSettings<{ x: number }>('owner', { type: 'object' });\n");
  writeFileSync(
    join(dir, 'reader', 'index.ts'),
    [
      "import { ownerSettings } from '../owner/index.js';",
      'export const a = (app: any) => app.settings(ownerSettings).x;',
      'export const b = (app: any) => app.config.owner.x;',
      'export const c = (app: any) => app.config.plugin_config.reader;',
      "export type D = Config['owner'];",
      "export const mine = defineSettings('owner', { type: 'object' });",
      "export const kernel = defineSettings('server', { type: 'object' });",
      'export const ok = (app: any) => app.config.data_dir;',
      '',
    ].join('\n'),
  );
  const found = settingsViolations(dir, KERNEL).map((v) => `${v.file}: ${v.detail}`);
  t.same(found.sort(), [
    "reader/index.ts: declares the settings owner, which owner declares too",
    'reader/index.ts: declares the settings server, which the kernel defines',
    "reader/index.ts: reads config.owner, which the kernel's schema does not define",
    "reader/index.ts: reads config.owner, which the kernel's schema does not define",
    'reader/index.ts: reads owner\'s settings (ownerSettings)',
    'reader/index.ts: reads plugin_config directly, not its own settings through app.settings()',
  ].sort());
});

t.test('no plugin reads settings that are not its own, and no two fragments collide', async (t) => {
  t.same(settingsViolations(PLUGINS, KERNEL).map((v) => `${v.file}: ${v.detail}`), []);
  t.doesNotThrow(() => assembleSchema({ properties: Object.fromEntries([...KERNEL].map((k) => [k, {}])) }, builtinSettings), 'the built-in fragments assemble');
  const [first, second] = builtinSettings;
  t.throws(() => assembleSchema({ properties: {} }, [first!, { plugin: 'copy', settings: { ...second!.settings, at: first!.settings.at } }]), /both declare the settings/);
});

t.test("each plugin's settings type names exactly the keys its schema declares", async (t) => {
  // app.settings(decl) is typed by the interface: a key the schema does not declare would be read
  // as undefined, always; a declared key missing from the type cannot be read at all
  for (const p of builtinPlugins) {
    if (!('load' in p) || !p.settings) continue;
    const dir = ['agents', 'providers', 'batch', 'attestation', 'a2a', 'mcp', 'audit', 'console'].includes(p.name) ? join(PLUGINS, p.name) : join(ENGINES, p.name);
    const text = readFileSync(join(dir, 'settings.ts'), 'utf8');
    const body = /export interface \w+Settings \{\n([\s\S]*?)\n\}/.exec(text)?.[1] ?? '';
    const typed = [...body.matchAll(/^ {2}([a-z_][a-z0-9_]*)\??:/gm)].map((m) => m[1]).sort();
    const declared = Object.keys((p.settings.schema as { properties?: object }).properties ?? {}).sort();
    t.same(typed, declared, `${p.name}: type and schema agree`);
  }
});

t.test('every engine plugin has the documented layout', async (t) => {
  const engines = readdirSync(ENGINES).filter((d) => statSync(join(ENGINES, d)).isDirectory());
  t.ok(engines.length >= 10, 'the engine plugins are found');
  for (const name of engines) {
    const dir = join(ENGINES, name);
    for (const file of ['index.ts', 'errors.ts', 'verifier.ts']) t.ok(existsSync(join(dir, file)), `${name}/${file}`);
    // the engine-call layer has one name; its former names stay gone
    for (const old of ['service.ts', 'verify.ts', 'run.ts']) t.notOk(existsSync(join(dir, old)), `${name} has no ${old}`);
    // index.ts is the plugin object and its surface: routes live in routes.ts
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    t.notOk(/\bapp\.route\s*\(/.test(index), `${name}/index.ts declares no route`);
    if (/registerRoutes|mathRoutes/.test(index)) t.ok(existsSync(join(dir, 'routes.ts')), `${name}/routes.ts`);
  }
});
