import t from 'tap';
import { Validator as OpenApiValidator } from '@seriousme/openapi-schema-validator';
import { componentName, componentSchema, openApiPath, operationId } from '../../core/http/openapi.js';
import { API_PREFIX } from '../../core/http/router.js';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { startServer, type TestServer } from '../helpers/server.js';

// the first two tests only read the built-ins' route table and document: one server serves both.
// No test here calls an engine, so none is warmed (the document does not depend on it).
let builtins: Promise<TestServer> | undefined;
function builtinServer(): Promise<TestServer> {
  return (builtins ??= startServer({ plugins: builtinPlugins, warmEngines: false }).then((s) => {
    t.teardown(() => s.close());
    return s;
  }));
}

t.test('GET /openapi.json describes every registered route with the route\'s own schemas', async (t) => {
  const s = await builtinServer();
  const res = await s.request('GET', '/openapi.json');
  t.equal(res.status, 200, 'public: no credential needed');
  const doc = res.body;
  t.equal(doc.openapi, '3.1.0');

  const validator = new OpenApiValidator();
  const result = await validator.validate(doc);
  t.ok(result.valid, `passes the OpenAPI 3.1 schema${result.valid ? '' : ': ' + JSON.stringify(result.errors).slice(0, 2000)}`);

  const broken = structuredClone(doc);
  broken.paths['/v1/verify/math'].post.responses = { '2XX': { content: {} } };
  t.notOk((await new OpenApiValidator().validate(broken)).valid, 'the validator does reject a malformed document');

  const components = doc.components.schemas as Record<string, object>;
  const ids = new Set<string>();
  const seenOps = new Set<string>();
  for (const r of s.kernel.routes) {
    const op = doc.paths[API_PREFIX + openApiPath(r.path)]?.[r.method.toLowerCase()];
    if (!t.ok(op, `${r.method} ${r.path} is documented`)) continue;
    t.equal(op.operationId, operationId(r));
    t.notOk(seenOps.has(op.operationId), `operationId ${op.operationId} is unique`);
    seenOps.add(op.operationId);
    if (r.auth === 'none') t.same(op.security, [], `${r.path} needs no credential`);
    else {
      // alternatives, one requirement per credential kind the route accepts, each with the route's scope
      t.same(op.security.map((s: object) => Object.keys(s)), [r.auth, ...(r.authAlso ?? [])].map((k) => [k]), `${r.method} ${r.path} names every accepted auth scheme`);
      t.same(new Set(op.security.map((s: Record<string, string[]>) => JSON.stringify(Object.values(s)[0]))).size, 1, `${r.method} ${r.path}: one scope list for all`);
    }
    for (const [part, id] of Object.entries(r.schema ?? {})) {
      ids.add(id);
      const name = componentName(id);
      t.ok(components[name], `${r.path} ${part} schema ${id} is a component`);
      const where =
        part === 'body' ? JSON.stringify(op.requestBody?.content) : part === 'response' ? JSON.stringify(op.responses['2XX']?.content) : JSON.stringify(op.parameters);
      t.match(where, `#/components/schemas/${name}`, `${r.method} ${r.path} ${part} refers to ${name}`);
    }
    if (r.produces) t.ok(op.responses['2XX'].content[r.produces.split(';')[0]], `${r.path} answers ${r.produces}`);
    // derived from the route's own declaration, not from a tag
    t.same(op['x-proofgate-verification'], r.verification ? { attest: r.verification.attest } : undefined, `${r.method} ${r.path}: verification as declared`);
    if (r.verification) t.ok(op.responses['429'], `${r.method} ${r.path}: a verification can be rate limited`);
    if (r.bodyType === 'multipart') t.ok(op.requestBody.content['multipart/form-data'], `${r.path} takes multipart`);
  }
  t.ok(doc.paths[`${API_PREFIX}/openapi.json`], 'the document describes itself');
  t.same(doc.paths[`${API_PREFIX}/verify/math`].post['x-proofgate-verification'], { attest: true }, 'math attests');
  t.same(doc.paths[`${API_PREFIX}/verify/logic`].post['x-proofgate-verification'], { attest: false }, 'logic is recorded, not sealed');
  t.notOk(JSON.stringify(doc.paths).includes('"attestable"'), 'no tag carries what a verification is');
  t.ok(ids.size > 20, 'routes carry schemas');
});

t.test('components are the registered schemas with local references', async (t) => {
  const s = await builtinServer();
  const doc = s.kernel.openapi() as any;
  const v = await import('../../core/json/validate.js');
  const { SCHEMAS_DIR } = await import('../../core/app.js');
  const reg = new v.Validator();
  reg.loadDir(SCHEMAS_DIR);
  for (const id of reg.schemaIds()) {
    const expected = componentSchema(id, reg.get(id)!, (x) => reg.has(x));
    t.same(doc.components.schemas[componentName(id)], expected, `${id} is carried unchanged but for its references`);
  }
  const text = JSON.stringify(doc);
  for (const m of text.matchAll(/"\$ref":"([^"]+)"/g)) t.match(m[1], /^#\/components\/schemas\//, `local reference ${m[1]}`);
});

t.test('a changed route shows in the document (it is generated, not written)', async (t) => {
  const extra = {
    name: 'probe-openapi',
    register(app: any) {
      app.route({ method: 'GET', path: '/probe/:item_id', auth: 'apiKey', scope: 'verify:read', handler: () => ({ body: {} }) });
    },
  };
  const s = await startServer({ plugins: [...builtinPlugins, extra], warmEngines: false });
  t.teardown(() => s.close());
  const doc = s.kernel.openapi() as any;
  const op = doc.paths[`${API_PREFIX}/probe/{item_id}`]?.get;
  t.ok(op, 'the new route is there');
  t.equal(op.operationId, 'getProbeByItemId');
  t.same(op.security, [{ apiKey: ['verify:read'] }]);
  t.same(op.parameters, [{ name: 'item_id', in: 'path', required: true, schema: { type: 'string' } }]);
});
