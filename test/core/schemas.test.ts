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
  const { Validator } = await import('../../core/json/validate.js');
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

t.test('every schema under schemas/ is valid against its meta-schema (start-up no longer checks them)', async (t) => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const { Ajv } = await import('ajv');
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const { SCHEMAS_DIR } = await import('../../core/app.js');
  const drafts = { '2020': new Ajv2020({ strict: false }), '07': new Ajv({ strict: false }) };
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json')) files.push(p);
    }
  };
  walk(fileURLToPath(SCHEMAS_DIR));
  t.ok(files.length > 50, `${files.length} files`);
  for (const f of files) {
    const schema = JSON.parse(readFileSync(f, 'utf8'));
    const ajv = schema.$schema === 'https://json-schema.org/draft/2020-12/schema' ? drafts['2020'] : drafts['07'];
    t.ok(ajv.validateSchema(schema), `${f.slice(f.indexOf('schemas/'))}: ${ajv.errorsText(ajv.errors)}`);
  }
});

t.test("a plugin's own schema is still checked against the meta-schema when it is registered", async (t) => {
  const { Validator } = await import('../../core/json/validate.js');
  const v = new Validator();
  v.add({ $id: 'https://example.test/bad.json', type: 'object', properties: { n: { type: 'integr' } } });
  t.throws(() => v.check('https://example.test/bad.json', {}, 'body'), /schema is invalid/);
});
