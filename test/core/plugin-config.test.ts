import t from 'tap';
import type { App, Plugin } from '../../core/types.js';
import { startServer } from '../helpers/server.js';

/** plugin_config.<key> is checked against the schema the plugin declares, by the kernel, before register */
function probe(seen: { app?: App }): Plugin {
  return {
    name: 'probe',
    config: { schema: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 10 } } } },
    register(app) {
      seen.app = app;
      app.schema({ $id: 'https://example.org/schemas/probe.json', type: 'object', required: ['n'], properties: { n: { type: 'integer' }, m: { type: 'string', default: 'x' } } });
    },
  };
}

t.test('a bad plugin_config value stops start-up, naming the setting; register never ran', async (t) => {
  const seen: { app?: App } = {};
  await t.rejects(startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { limit: 0 } } } }), /plugin_config\.probe\.limit must be >= 1/);
  await t.rejects(startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { limit: 2.5 } } } }), /plugin_config\.probe\.limit must be integer/);
  await t.rejects(startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { other: 1 } } } }), /plugin_config\.probe\.other is not an allowed property/);
  t.equal(seen.app, undefined);
});

t.test('a good or absent plugin_config starts; app.validate uses the kernel validator', async (t) => {
  const seen: { app?: App } = {};
  const s = await startServer({ plugins: [probe(seen)], config: { plugin_config: { probe: { limit: 3 } } } });
  t.teardown(() => s.close());
  const app = seen.app!;
  const value: Record<string, unknown> = { n: 1 };
  t.same(app.validate('https://example.org/schemas/probe.json', value), []);
  t.equal(value.m, 'x', 'defaults are filled in place');
  t.same(app.validate('https://example.org/schemas/probe.json', { n: 'one' }), [{ field: '/body/n', message: 'must be integer' }]);
  t.same(app.validate('https://example.org/schemas/probe.json', {}, 'params'), [{ field: '/params/n', message: 'is required' }]);

  const absent = await startServer({ plugins: [probe({})] });
  await absent.close();
  t.pass('no plugin_config.probe is valid');
});
