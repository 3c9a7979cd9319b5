import t from 'tap';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { configSchema, loadConfig } from '../../core/config.js';
import { aloneValidator, contentKey, GENERATED_DIR } from '../../core/json/generated.js';
import { compileAlone } from '../../core/json/validate.js';
import { builtinSettings } from '../../sidecar/builtin.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { outcomes } from '../helpers/validators.js';

const SECRETS = { SVC_JWT_SECRET_KEY: 'j'.repeat(43), SVC_API_KEY_LOOKUP_SECRET: 'l'.repeat(43) };
const schema = configSchema(builtinSettings);

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

t.test('the build generated the configuration schema\'s validator, and the sidecar\'s loader uses it', async (t) => {
  const index = JSON.parse(readFileSync(new URL('index.json', GENERATED_DIR), 'utf8')) as { alone: Record<string, string> };
  t.ok(index.alone[contentKey(schema)], 'npm run build generated it (dist/core/json/generated/, by the schema\'s text)');
  const file = fileURLToPath(new URL(index.alone[contentKey(schema)], GENERATED_DIR));
  const required = () => Object.keys(createRequire(import.meta.url).cache).includes(file);
  t.notOk(required(), 'not loaded before the first configuration load (this is the test\'s first)');
  t.ok(loadServiceConfig({ env: SECRETS }).server, 'the sidecar loads with it');
  // the file is in CommonJS's cache, the process's: the loader required it
  t.ok(required(), 'the loader ran the generated validator');
  t.ok(aloneValidator(schema), 'served by its text');
});

t.test('the generated validator says what a compile says, defaults included', async (t) => {
  const pre = aloneValidator(schema)!;
  const compiled = compileAlone(schema);
  for (const [name, doc] of CASES) {
    const got = outcomes(pre, compiled, doc);
    t.equal(got.generated.ok, got.compiled.ok, `${name}: same answer (${got.compiled.ok})`);
    t.same(got.generated.errors, got.compiled.errors, `${name}: same errors`);
    t.same(got.generated.data, got.compiled.data, `${name}: same defaults filled in`);
  }
  // a default is a fresh value per load, never one object shared by two configurations
  const one: Record<string, any> = {};
  const two: Record<string, any> = {};
  pre(one);
  pre(two);
  t.not(one.server, two.server, 'the server section is a new object each time');
  t.not(one.attestation.retired_keys, two.attestation.retired_keys, 'a default array is a new array each time');
  const formatErrors = () => (pre.errors ?? []).filter((e) => e.keyword === 'format');
  pre({ tracing: { otlp_endpoint: 'not a url' } });
  t.equal(formatErrors()[0]?.params?.format, 'uri', 'formats are checked (uri)');
  pre({ attestation: { retired_keys: [{ key_name: 'k1', public_key_pem: 'pem', retired_at: 'yesterday' }] } });
  t.equal(formatErrors()[0]?.params?.format, 'date-time', 'formats are checked (date-time)');
});

t.test('a configuration schema the build did not see (other plugins) is compiled, and refuses as before', async (t) => {
  const other = [...builtinSettings.slice(1)];
  t.equal(aloneValidator(configSchema(other)), undefined, 'no generated validator for that text');
  t.throws(() => loadConfig({ env: SECRETS, settings: other, overrides: { server: { port: 70000 } } as never }), /server\.port.*must be <= 65535/);
  t.throws(() => loadServiceConfig({ env: SECRETS, overrides: { server: { port: 70000 } } as never }), /server\.port/, 'the sidecar path refuses it too');
});
