import t from 'tap';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SCHEMAS_DIR } from '../../core/app.js';
import { aloneValidator, GENERATED_DIR, loadGenerated, selfContained, writeGenerated } from '../../core/json/generated.js';
import { compileAlone, compileSchema, Validator, type Part } from '../../core/json/validate.js';
import { builtinSettings } from '../../sidecar/builtin.js';
import mathPlugin from '../../plugins/engines/math/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY, untilReady } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { outcomes } from '../helpers/validators.js';
import { nodeCommand } from '../helpers/child.js';
import { execFileSync } from 'node:child_process';

const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
/** values of every JSON type, and objects wrong in the ways a schema says most often */
const PROBES: unknown[] = [null, 0, -1.5, 'x', true, [], [1, 'a'], {}, { id: 1 }, { a: 'b', c: [null] }, { expression: 7, claimed_result: {} }, { limit: '5', offset: 'x' }];

t.test('the build generated the repository schemas, and a kernel checks with them', async (t) => {
  const index = JSON.parse(readFileSync(new URL('index.json', GENERATED_DIR), 'utf8')) as { files: Record<string, unknown> };
  const v = new Validator();
  v.loadDir(SCHEMAS_DIR);
  t.ok(Object.keys(index.files).length >= v.checkedIds().length - 2, `npm run build generated (nearly) every schema: ${Object.keys(index.files).length} of ${v.checkedIds().length}`);
  const s = await startServer({ plugins: [testAuthPlugin(), mathPlugin], config: { workers: { threads: 1 } } });
  t.teardown(() => s.close());
  await untilReady(s.kernel);
  const r = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: '2+2=4' } });
  t.equal(r.status, 200, 'a verification passes its request and (test servers) response schemas');
  const bad = await s.request('POST', '/verify/math', { apiKey: TEST_API_KEY, body: { expression: 2 } });
  t.equal(bad.status, 400, 'a wrong body is refused');
  t.match(bad.body.errors, [{ field: '/body/expression' }], 'the field named as before');
  // the kernel loaded the generated files of the route's request and response schemas (CommonJS's cache is the process's)
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  for (const id of ['https://proofgate.dev/schemas/math/request.json', 'https://proofgate.dev/schemas/math/response.json']) {
    const file = fileURLToPath(new URL(`${createHash('sha256').update(`strict:${id}`).digest('hex').slice(0, 24)}.cjs`, GENERATED_DIR));
    t.ok(loaded.includes(file), `${id}: checked by its generated validator`);
  }
});

t.test('every generated validator gives the compiled one\'s answers, errors and defaults', async (t) => {
  const generated = new Validator(GENERATED_DIR);
  generated.loadDir(SCHEMAS_DIR);
  const compiled = new Validator();
  compiled.loadDir(SCHEMAS_DIR);
  let pairs = 0;
  for (const id of compiled.checkedIds()) {
    const parts: Part[] = /\.(query|params)\.json$/.test(id) ? ['body', 'query'] : ['body'];
    for (const part of parts) {
      for (const probe of PROBES) {
        const a = copy(probe);
        const b = copy(probe);
        const ea = generated.check(id, a, part);
        const eb = compiled.check(id, b, part);
        if (JSON.stringify(ea) !== JSON.stringify(eb) || JSON.stringify(a) !== JSON.stringify(b)) {
          t.fail(`${id} (${part}) on ${JSON.stringify(probe)}`, { found: { errors: ea, data: a }, wanted: { errors: eb, data: b } });
        }
        pairs++;
      }
      t.equal(compiled.origin(id, part), 'compiled');
      if (generated.origin(id, part) !== 'generated') t.comment(`${id} (${part}): compiled at run time`);
    }
  }
  t.ok(pairs > 1000, `${pairs} checks compared`);
});

t.test('an edited schema is checked by a compile, never by an older generated validator', async (t) => {
  const dir = tempDir(t, 'pg-schemas-');
  cpSync(SCHEMAS_DIR, dir, { recursive: true });
  const file = join(dir, 'math', 'request.json');
  const schema = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, { maxLength?: number }> };
  schema.properties.expression.maxLength = 3;
  writeFileSync(file, JSON.stringify(schema));
  const v = new Validator(GENERATED_DIR);
  v.loadDir(dir);
  const errors = v.check('https://proofgate.dev/schemas/math/request.json', { expression: '1+1+1' }, 'body');
  t.equal(v.origin('https://proofgate.dev/schemas/math/request.json', 'body'), 'compiled');
  t.match(errors, [{ field: '/body/expression' }], 'the edited bound holds');
});

t.test('loadGenerated: no index, another fingerprint, a file name that is not one of ours', async (t) => {
  const dir = tempDir(t, 'pg-gen-');
  const url = pathToFileURL(dir + '/');
  t.equal(loadGenerated(url, () => 'f'), null, 'no index: compile');
  const v = new Validator();
  v.add({ $id: 'https://example.test/s.json', type: 'object', properties: { n: { type: 'integer', default: 2 } } });
  const source = { checkedFingerprint: () => 'abc', checkedIds: () => ['https://example.test/s.json'], standalone: (id: string, c: boolean) => v.standalone(id, c), get: (id: string) => v.get(id) };
  t.same(writeGenerated(url, source), { written: 1, skipped: [] });
  t.equal(loadGenerated(url, () => 'other'), null, 'another fingerprint: compile');
  const set = loadGenerated(url, () => 'abc');
  const fn = set?.fn('https://example.test/s.json', false);
  const doc: Record<string, unknown> = {};
  t.equal(fn?.(doc), true);
  t.same(doc, { n: 2 }, 'defaults filled');
  t.equal(set?.fn('https://example.test/s.json', true), undefined, 'no coercing form was generated for a body schema');
  t.equal(set?.fn('__proto__', false), undefined);
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { files: Record<string, { strict: string }> };
  index.files['https://example.test/s.json'].strict = '../../../etc/passwd';
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  t.equal(loadGenerated(url, () => 'abc')?.fn('https://example.test/s.json', false), undefined, 'an index naming another path is not followed');
});

t.test('schemas compiled alone: every built-in settings fragment and each self-contained schema has its generated validator, and it answers as a compile', async (t) => {
  const compiled = new Validator();
  compiled.loadDir(SCHEMAS_DIR);
  for (const { plugin, settings } of builtinSettings) {
    const schema = settings.schema as object;
    const fn = aloneValidator(schema);
    t.ok(fn, `${plugin}: ${settings.at} generated`);
    if (!fn) continue;
    // the compile beside it, in a fresh instance with the same options (what compileSchema builds without the file)
    const reference = compileAlone(schema);
    for (const probe of [...PROBES, { enabled: 'yes' }, { timeout_ms: -1 }]) {
      const got = outcomes(fn, reference, probe);
      if (JSON.stringify(got.generated) !== JSON.stringify(got.compiled)) t.fail(`${plugin} on ${JSON.stringify(probe)}`, { found: got.generated, wanted: got.compiled });
    }
  }
  let alone = 0;
  for (const id of compiled.checkedIds()) {
    const schema = compiled.get(id)!;
    if (selfContained(schema)) {
      t.ok(aloneValidator(schema), `${id}: generated for a compile of it alone`);
      alone++;
    } else t.equal(aloneValidator(schema), undefined, `${id} names another schema: never served alone`);
  }
  t.ok(alone > 50, `${alone} self-contained schemas`);
  const edited = { ...(compiled.get('https://proofgate.dev/schemas/a2a/trusted-agents.json') as object), title: 'edited' };
  t.equal(aloneValidator(edited), undefined, 'another text is not served');
  const trust = compiled.get('https://proofgate.dev/schemas/a2a/trusted-agents.json') as object;
  t.equal(compileSchema(JSON.parse(JSON.stringify(trust)) as object), aloneValidator(trust), 'compileSchema serves the generated validator of a file it reads');
});

t.test('a kernel with every built-in plugin starts and answers without loading ajv (nothing compiled at start)', async (t) => {
  // a process of its own: this one has loaded ajv for the comparisons above
  const server = new URL('../helpers/server.js', import.meta.url).href;
  const builtin = new URL('../../sidecar/builtin.js', import.meta.url).href;
  const script = `
    const { startServer } = await import(${JSON.stringify(server)});
    const { builtinPlugins } = await import(${JSON.stringify(builtin)});
    const s = await startServer({ plugins: builtinPlugins });
    const r = await s.request('GET', '/health');
    await s.close();
    const { createRequire } = await import('node:module');
    const ajv = Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules[\\/]ajv[\\/]dist[\\/](core|ajv|compile)/.test(k));
    console.log(JSON.stringify({ status: r.status, ajv: ajv.length }));
    process.exit(0);`;
  const out = execFileSync(...nodeCommand(['--input-type=module', '-e', script]), { encoding: 'utf8', timeout: 60_000 });
  const got = JSON.parse(out.trim().split('\n').pop()!) as { status: number; ajv: number };
  t.equal(got.status, 200, 'the kernel answered');
  t.equal(got.ajv, 0, "ajv's compiler was never loaded: every validator of the start was the build's");
});
