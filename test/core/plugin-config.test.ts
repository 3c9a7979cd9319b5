import t from 'tap';
import type { App, Plugin } from '../../core/types.js';
import { defineSettings } from '../../core/plugin/settings.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A plugin's settings: declared in its manifest with their schema fragment, checked by the kernel
 * before any plugin registers, read typed with app.settings(declaration), and only by their owner.
 */
interface ProbeSettings {
  limit?: number;
  mode: 'a' | 'b';
}
const probeSettings = defineSettings<ProbeSettings>('plugin_config.probe', {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 10 }, mode: { enum: ['a', 'b'], default: 'a' } },
});

function probe(seen: { app?: App; settings?: ProbeSettings }, settings = probeSettings): Plugin {
  return {
    name: 'probe',
    settings,
    register(app) {
      seen.app = app;
      seen.settings = app.settings(probeSettings);
      app.schema({ $id: 'https://example.org/schemas/probe.json', type: 'object', required: ['n'], properties: { n: { type: 'integer' }, m: { type: 'string', default: 'x' } } });
    },
  };
}

t.test('a bad plugin setting stops start-up, naming the setting; register never ran', async (t) => {
  const seen: { app?: App } = {};
  await t.rejects(startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { limit: 0 } } } }), /plugin_config\.probe\.limit must be >= 1/);
  await t.rejects(startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { limit: 2.5 } } } }), /plugin_config\.probe\.limit must be integer/);
  await t.rejects(startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { other: 1 } } } }), /plugin_config\.probe\.other is not an allowed property/);
  t.equal(seen.app, undefined);
});

t.test('a good or absent value starts, typed and with its defaults; app.validate uses the kernel validator', async (t) => {
  const seen: { app?: App; settings?: ProbeSettings } = {};
  const s = await startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { limit: 3 } } } });
  t.teardown(() => s.close());
  t.same(seen.settings, { limit: 3, mode: 'a' }, 'the fragment default is filled');
  const app = seen.app!;
  const value: Record<string, unknown> = { n: 1 };
  t.same(app.validate('https://example.org/schemas/probe.json', value), []);
  t.equal(value.m, 'x', 'defaults are filled in place');
  t.same(app.validate('https://example.org/schemas/probe.json', { n: 'one' }), [{ field: '/body/n', message: 'must be integer' }]);
  t.same(app.validate('https://example.org/schemas/probe.json', {}, 'params'), [{ field: '/params/n', message: 'is required' }]);

  const absentSeen: { settings?: ProbeSettings } = {};
  const absent = await startServer({ plugins: [probe(absentSeen)] });
  await absent.close();
  t.same(absentSeen.settings, { mode: 'a' }, 'no plugin_config.probe is valid and gets the defaults');
});

t.test('settings belong to their plugin: reading undeclared ones stops start-up', async (t) => {
  const other = defineSettings<{ x?: number }>('plugin_config.other', { type: 'object', additionalProperties: false, properties: { x: { type: 'integer' } } });
  const reader = (settings?: typeof other): Plugin => ({
    name: 'reader',
    ...(settings ? { settings } : {}),
    register(app) {
      app.settings(probeSettings);
    },
  });
  await t.rejects(startServer({ plugins: [reader()] }), /plugin reader reads the settings plugin_config\.probe without declaring them/);
  await t.rejects(startServer({ plugins: [probe({}), reader(other)] }), /plugin reader reads the settings plugin_config\.probe/, "another plugin's settings, even when loaded");
  // a copy of the declaration is not the declaration: the kernel compares the manifest's own
  await t.rejects(startServer({ plugins: [probe({}, { ...probeSettings })] }), /reads the settings plugin_config\.probe without declaring/);
});

t.test('a plugin_config key no plugin declares stops start-up, with the likely name', async (t) => {
  await t.rejects(startServer({ plugins: [probe({})], config: { plugin_config: { prboe: { limit: 1 } } } }), /plugin_config\.prboe: no enabled or built-in plugin declares these settings \(did you mean plugin_config\.probe\?\)/);
  await t.rejects(startServer({ plugins: [probe({})], config: { plugin_config: { nobody: {} } } }), /plugin_config\.nobody: no enabled or built-in plugin/);
});

t.test('two plugins at one place, or a plugin at a kernel section, stop start-up naming both', async (t) => {
  const twin: Plugin = { name: 'twin', settings: probeSettings, register() {} };
  await t.rejects(startServer({ plugins: [probe({}), twin] }), /plugins probe and twin both declare the settings plugin_config\.probe/);
  const squatter: Plugin = { name: 'squatter', settings: defineSettings('server', { type: 'object', properties: {} }), register() {} };
  await t.rejects(startServer({ plugins: [squatter] }), /plugin squatter declares the settings server, which the kernel defines/);
  const odd: Plugin = { name: 'odd', settings: defineSettings('a.b.c', { type: 'object' }), register() {} };
  await t.rejects(startServer({ plugins: [odd] }), /settings\.at must be a section name or plugin_config\.<name>/);
});

t.test('an operator plugin from a path declares its settings under plugin_config, checked before any plugin registers', async (t) => {
  const dir = tempDir(t, 'pg-extra-settings-');
  const write = (name: string, at: string) => {
    const file = join(dir, `${name}.mjs`);
    writeFileSync(
      file,
      `export default { name: '${name}', settings: { at: '${at}', schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', default: 2 } } } },\n` +
        `  register(app) { globalThis.__seenSettings = app.settings(this.settings); } };\n`,
    );
    return file;
  };
  const good = write('wordy', 'plugin_config.wordy');
  const s = await startServer({ config: { plugins: { extra: [good], disabled: [] }, plugin_config: { wordy: { n: 5 } } } });
  await s.close();
  t.same((globalThis as Record<string, unknown>).__seenSettings, { n: 5 });
  await t.rejects(startServer({ config: { plugins: { extra: [good], disabled: [] }, plugin_config: { wordy: { n: 'five' } } } }), /plugin_config\.wordy\.n must be integer/);
  await t.rejects(startServer({ config: { plugins: { extra: [good], disabled: [] }, plugin_config: { wordy: { m: 1 } } } }), /plugin_config\.wordy\.m is not an allowed property/);
  const top = write('toplevel', 'toplevel');
  await t.rejects(startServer({ config: { plugins: { extra: [top], disabled: [] } } }), /settings of a plugin loaded from a path live under plugin_config\.<name>, not at toplevel/);
});
