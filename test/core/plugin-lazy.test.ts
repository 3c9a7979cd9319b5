import t, { type Test } from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolvePlugins } from '../../core/plugin/load.js';
import type { Plugin, PluginRef } from '../../core/types.js';
import { builtinPlugins } from '../../sidecar/builtin.js';
import { startReplica, type Replica } from '../helpers/replica.js';
import { waitFor } from '../helpers/wait.js';
import { TEST_SECRETS } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';

const plugin = (name: string, aliases?: string[]): Plugin => ({ name, aliases, register: () => undefined });

function lazy(name: string, loaded: Plugin, aliases?: string[]): PluginRef & { loads: number } {
  const ref = { name, aliases, loads: 0, load: async () => (ref.loads++, loaded) };
  return ref;
}

t.test('a disabled reference is never loaded; enabled ones load in list order', async (t) => {
  const math = lazy('math', plugin('math', ['engine-math']), ['engine-math']);
  const code = lazy('code', plugin('code'));
  const list = await resolvePlugins([plugin('health'), math, code], ['engine-math'], []);
  t.same(list.map((p) => p.name), ['health', 'code']);
  t.equal(math.loads, 0, 'disabled by its former name, and not imported');
  t.equal(code.loads, 1);
});

t.test('a reference whose plugin has another name or other aliases is refused', async (t) => {
  await t.rejects(resolvePlugins([lazy('math', plugin('maths'))], [], []), /built-in entry math loaded plugin maths/);
  await t.rejects(resolvePlugins([lazy('math', plugin('math', ['engine-math']))], [], []), /the list and the plugin disagree/);
  const failing: PluginRef = { name: 'broken', load: () => Promise.reject(new Error('no such module')) };
  await t.rejects(resolvePlugins([failing], [], []), /cannot load built-in plugin broken: no such module/);
  t.same(await resolvePlugins([failing], ['broken'], []), [], 'unless it is disabled');
});

t.test("every built-in entry names its plugin's own name and aliases", async (t) => {
  for (const entry of builtinPlugins) {
    const p = 'load' in entry ? await entry.load() : entry;
    t.equal(p.name, entry.name);
    t.same(p.aliases ?? [], entry.aliases ?? [], `aliases of ${entry.name}`);
  }
});

/**
 * Starts `proofgate start` with module hooks that write down every module loaded (`loaded`) and, for
 * each import, the module and its importer (`imports`: "url <- parent"). They see the main thread's
 * imports only: engine threads start without NODE_OPTIONS (core/workers/pool.ts), and a thread can
 * only import the module of an engine a loaded plugin declared.
 */
async function startRecording(t: Test, disabled: string): Promise<{ request: Replica['request']; loaded: () => string[]; imports: () => string[] }> {
  const dir = tempDir(t, 'pg-lazy-');
  const out = join(dir, 'loaded.txt');
  const edges = join(dir, 'imports.txt');
  writeFileSync(
    join(dir, 'hook.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, ctx, next) { appendFileSync(${JSON.stringify(out)}, url + '\\n'); return next(url, ctx); }\n` +
      `export async function resolve(spec, ctx, next) { const r = await next(spec, ctx); appendFileSync(${JSON.stringify(edges)}, r.url + ' <- ' + ctx.parentURL + '\\n'); return r; }\n`,
  );
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
  const pem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const replica = await startReplica({
    NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'register.mjs')).href}`,
    SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key,
    SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret,
    SVC_AUDIT_SECRET_KEY: TEST_SECRETS.audit_secret_key,
    SVC_A2A_DEPLOYMENT_ID: 'lazy-test',
    SVC_A2A_SIGNING_KEY_PEM: pem(),
    SVC_PLUGINS_DISABLED: disabled,
  });
  t.teardown(() => replica.stop());
  await waitFor(async () => (await replica.request('GET', '/readyz')).status === 200, { what: 'the sidecar to be ready', timeoutMs: 120_000, everyMs: 50 });
  const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean);
  return { request: replica.request, loaded: () => lines(out), imports: () => lines(edges) };
}

t.test('proofgate start imports no module of a disabled engine (nor pg, ioredis, undici or the OpenTelemetry SDK, with A2A enabled)', async (t) => {
  // fact the one engine: it has no warm-up for /readyz to wait on (math's loads mathjs first)
  const replica = await startRecording(t, 'math,logic,code,sql,image,consensus,rag,process,stats,natural-language,mcp,batch');
  const fact = await replica.request('POST', '/verify/fact', { body: { claim: 'It is red.', context: 'It is red.' } });
  t.not(fact.status, 404, 'the enabled engine serves');
  // a plugin's settings declaration is its one module loaded whether or not it is enabled: the
  // configuration is checked, whole, before any plugin loads (sidecar/builtin.ts)
  const declarations = replica.loaded().filter((u) => /\/plugins\/(?:engines\/)?[a-z0-9-]+\/settings\.js$/.test(u));
  const loaded = replica.loaded().filter((u) => !declarations.includes(u));
  t.ok(declarations.some((u) => u.endsWith('/plugins/engines/logic/settings.js')), "a disabled engine's settings declaration is read");
  t.ok(loaded.some((u) => u.includes('/plugins/engines/fact/')), 'the enabled engine was imported');
  // badge-maker loads with the first badge, yaml with a bootstrap file (none here)
  for (const gone of ['/plugins/engines/math/', '/node_modules/mathjs/', '/plugins/engines/logic/', '/plugins/engines/code/', '/plugins/engines/sql/', '/plugins/mcp/', '/plugins/batch/', '/node_modules/z3-solver/', '/node_modules/web-tree-sitter/', '/node_modules/sql.js/', '/node_modules/pg/', '/node_modules/ioredis/', '/node_modules/undici/', '/core/store/pg.js', '/node_modules/badge-maker/', '/node_modules/yaml/',
    // tracing is off (no OTLP endpoint): the OpenTelemetry SDK, exporter and context manager stay unloaded
    '/node_modules/@opentelemetry/sdk-trace-base/', '/node_modules/@opentelemetry/exporter-trace-otlp-http/', '/node_modules/@opentelemetry/context-async-hooks/', '/node_modules/@opentelemetry/resources/']) {
    t.notOk(loaded.some((u) => u.includes(gone)), `nothing under ${gone}`);
  }
});

t.test("the main thread does not import the code engine's parsers: only its worker does", async (t) => {
  const replica = await startRecording(t, 'logic,sql,image,consensus,rag,process,stats,fact,natural-language,mcp,batch,math');
  const signup = await replica.request('POST', '/auth/signup', { body: { email: 'lazy@example.com', password: 'correct horse battery', organization_name: 'lazy' } });
  const key = await replica.request('POST', '/auth/api-keys', { body: { name: 'k' }, headers: { authorization: `Bearer ${signup.body.access_token}` } });
  const code = await replica.request('POST', '/verify/code', { apiKey: key.body.key, body: { code: 'import os, sys\nos.system(sys.argv[1])', language: 'python' } });
  t.equal(code.status, 200, 'the code engine serves');
  t.match(code.body, { status: 'VERIFIED', developer_fields: { is_safe: false } }, 'from a parse tree, in its worker');
  const imports = replica.imports();
  const importers = (file: string) => imports.filter((l) => l.split(' <- ')[0].endsWith(file));
  t.ok(importers('/plugins/engines/code/index.js').length > 0, 'the plugin was imported');
  // acorn, sucrase and tree-sitter come in through analyze.js, which only the worker's engine module imports
  for (const worker of ['/plugins/engines/code/engine.js', '/plugins/engines/code/analyze.js', '/node_modules/acorn/', '/node_modules/web-tree-sitter/']) {
    t.notOk(replica.loaded().some((u) => u.includes(worker)), `the main thread never loaded ${worker}`);
  }
});
