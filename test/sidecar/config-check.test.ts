import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configSchema, loadConfig } from '../../core/config.js';
import { compileSchema, schemaFingerprint, standaloneSource } from '../../core/json/validate.js';
import { builtinSettings } from '../../sidecar/builtin.js';
import { load, precompiledConfigCheck } from '../../sidecar/config-check.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRETS = { SVC_JWT_SECRET_KEY: 'j'.repeat(43), SVC_API_KEY_LOOKUP_SECRET: 'l'.repeat(43) };
const schema = configSchema(builtinSettings);
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

// documents that pass, and documents wrong in each way the schema can say: a type, a bound, an
// enum, an unknown key (top level and nested), a pattern, the two formats, a plugin's section
const CASES: Array<[string, Record<string, unknown>]> = [
  ['empty (every default filled)', {}],
  ['a valid mix', { server: { port: 8080, host: '0.0.0.0' }, log_level: 'debug', workers: { threads: 2 } }],
  ['a port out of range', { server: { port: 70000 } }],
  ['a port of the wrong type', { server: { port: '80' } }],
  ['an unknown top-level key', { serverr: {} }],
  ['an unknown nested key', { server: { prot: 1 } }],
  ['a log level outside its enum', { log_level: 'loud' }],
  ['an OTLP endpoint that is not a URI', { tracing: { otlp_endpoint: 'not a url' } }],
  ['a retirement time that is not a date-time', { attestation: { retired_keys: [{ key_name: 'k1', public_key_pem: 'pem', retired_at: 'yesterday' }] } }],
  ['a plugin section of the wrong shape', { plugin_config: { code: { python_fast_parser: 'yes' } } }],
  ['an unknown plugin setting', { plugin_config: { code: { nope: 1 } } }],
  ['many errors at once', { server: { port: -1, host: '' }, log_level: 3, data_dir: 7 }],
];

t.test('the build generated the validator of the schema as it is now, and the loader uses it', async (t) => {
  const pre = precompiledConfigCheck();
  t.ok(pre, 'npm run build wrote dist/sidecar/config-check.gen.cjs');
  t.equal(pre!.fingerprint, schemaFingerprint(schema), 'generated from the current schema');
  // the loader calls the generated function: a stand-in with the same fingerprint is what it runs
  let calls = 0;
  const counted = Object.assign((d: unknown) => (calls++, pre!.validate(d)), { errors: null });
  loadConfig({ env: SECRETS, settings: builtinSettings, precompiled: { fingerprint: pre!.fingerprint, validate: counted as never } });
  t.equal(calls, 1, 'the precompiled validator ran');
  t.ok(loadServiceConfig({ env: SECRETS }).server, 'the sidecar loads with it');
});

t.test('the generated validator says what the compiled one says, defaults included', async (t) => {
  const pre = precompiledConfigCheck()!;
  const compiled = compileSchema(schema);
  for (const [name, doc] of CASES) {
    const a = copy(doc);
    const b = copy(doc);
    const okA = pre.validate(a);
    const errorsA = copy(pre.validate.errors ?? null);
    const okB = compiled(b);
    const errorsB = copy(compiled.errors ?? null);
    t.equal(okA, okB, `${name}: same answer (${okB})`);
    t.same(errorsA, errorsB, `${name}: same errors`);
    t.same(a, b, `${name}: same defaults filled in`);
  }
  // a default is a fresh value per load, never one object shared by two configurations
  const one: Record<string, any> = {};
  const two: Record<string, any> = {};
  pre.validate(one);
  pre.validate(two);
  t.not(one.server, two.server, 'the server section is a new object each time');
  t.not(one.attestation.retired_keys, two.attestation.retired_keys, 'a default array is a new array each time');
  const uriErrors = () => (pre.validate.errors ?? []).filter((e) => e.keyword === 'format');
  pre.validate({ tracing: { otlp_endpoint: 'not a url' } });
  t.equal(uriErrors()[0]?.params?.format, 'uri', 'formats are checked (uri)');
  pre.validate({ attestation: { retired_keys: [{ key_name: 'k1', public_key_pem: 'pem', retired_at: 'yesterday' }] } });
  t.equal(uriErrors()[0]?.params?.format, 'date-time', 'formats are checked (date-time)');
});

t.test('a generated validator whose fingerprint is not the schema\'s is not used', async (t) => {
  const lenient = Object.assign(() => true, { errors: null });
  t.throws(
    () => loadConfig({ env: SECRETS, settings: builtinSettings, overrides: { server: { port: 70000 } } as never, precompiled: { fingerprint: 'f'.repeat(64), validate: lenient as never } }),
    /server\.port.*must be <= 65535/,
    'the schema is compiled and refuses the port',
  );
  t.throws(() => loadServiceConfig({ env: SECRETS, overrides: { server: { port: 70000 } } as never }), /server\.port/, 'the sidecar path refuses it too');
});

t.test('load: no file, a file that is not a generated validator, a generated one', async (t) => {
  const dir = tempDir(t, 'pg-cfgcheck-');
  t.equal(load(pathToFileURL(join(dir, 'absent.cjs'))), null, 'no file: compile instead');
  writeFileSync(join(dir, 'other.cjs'), 'module.exports = { hello: 1 };\n');
  t.equal(load(pathToFileURL(join(dir, 'other.cjs'))), null, 'not a function with a fingerprint');
  const small = { type: 'object', properties: { n: { type: 'integer', default: 3 } }, additionalProperties: false };
  // written where ajv's runtime modules resolve, as the build's is
  const file = new URL('./config-check-probe.gen.cjs', import.meta.url);
  writeFileSync(file, standaloneSource(small));
  t.teardown(() => import('node:fs').then((fs) => fs.rmSync(file, { force: true })));
  const got = load(file);
  t.equal(got?.fingerprint, schemaFingerprint(small));
  const doc: Record<string, unknown> = {};
  t.equal(got?.validate(doc), true);
  t.same(doc, { n: 3 }, 'defaults filled');
  t.equal(got?.validate({ n: 1.5 }), false);
  t.equal(got?.validate({ m: 1 }), false);
});
