import t from 'tap';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { startServer } from '../helpers/server.js';

/**
 * Every wire shape has a JSON schema: each built-in route that takes a body names a body schema,
 * each route with path parameters a params schema, and each JSON response a response schema; a
 * route answering something else (SVG, CSV, Prometheus text) says so with `produces`.
 */
t.test('every built-in route declares the schemas of its request and response', async (t) => {
  const s = await startServer({ plugins: builtinPlugins });
  t.teardown(() => s.close());
  t.ok(s.kernel.routes.length > 40, 'the built-ins are loaded');
  for (const r of s.kernel.routes) {
    const id = `${r.method} ${r.path}`;
    const takesBody = ['POST', 'PUT', 'PATCH'].includes(r.method) && r.bodyType !== 'none';
    if (takesBody) t.ok(r.schema?.body, `${id} has a body schema`);
    if (r.path.includes('/:')) t.ok(r.schema?.params, `${id} has a params schema`);
    t.ok(r.schema?.response || r.produces, `${id} has a response schema or declares its media type`);
  }
});

t.test('every schema under schemas/ compiles (they compile lazily at run time, so a test must)', async (t) => {
  const { Validator } = await import('../../core/validate.js');
  const { SCHEMAS_DIR } = await import('../../core/app.js');
  const v = new Validator();
  v.loadDir(SCHEMAS_DIR);
  const ids = v.schemaIds();
  t.ok(ids.length > 50, `${ids.length} schemas`);
  for (const id of ids) {
    for (const part of ['body', 'query'] as const) {
      try {
        v.check(id, {}, part);
        t.pass(`${id} compiles (${part})`);
      } catch (err) {
        t.fail(`${id} does not compile (${part}): ${(err as Error).message}`);
      }
    }
  }
});
