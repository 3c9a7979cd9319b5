import t from 'tap';
import plugin from '../../../../plugins/engines/sql/index.js';
import { verify } from '../../../../plugins/engines/sql/engine.js';
import { HttpError } from '../../../../core/errors.js';
import { Validator } from '../../../../core/json/validate.js';
import { renderVerdict } from '../../../../core/verdict.js';
import type { App, EngineHandle, RouteDef } from '../../../../core/types.js';
import { SHOP } from '../fixtures/helpers.js';

// the kernel's one validator over the repository's schemas, as the route and `verifier.sql` use it
const validator = new Validator();
validator.loadDir(new URL('../../../../../schemas/', import.meta.url));
const REQ = 'https://proofgate.dev/schemas/sql/verify.request.json';
const RES = 'https://proofgate.dev/schemas/sql/verify.response.json';
const validateReq = (v: unknown) => validator.check(REQ, v, 'body').length === 0;
const resErrors = (v: unknown) => validator.check(RES, v, 'response');

class FakeEngineError extends Error {
  constructor(readonly kind: string) { super(kind); this.name = 'EngineError'; }
}

function mount(run: EngineHandle['run']) {
  const routes: RouteDef[] = [];
  const engines: Array<{ name: string; module?: URL }> = [];
  const services = new Map<string, unknown>();
  const app = {
    route: (d: RouteDef) => routes.push(d),
    engine: (d: { name: string; version: string; module?: URL }) => { engines.push(d); return { name: d.name, version: d.version, run }; },
    provide: (name: string, v: unknown) => { services.set(name, v); },
    validate: (id: string, v: unknown, part: 'body' | 'query' | 'params' | 'response' = 'body') => validator.check(id, v, part),
  } as unknown as App;
  plugin.register(app);
  return { route: routes[0], engines, services };
}

const inProcess: EngineHandle['run'] = (async (fn: string, input: unknown) => {
  t.equal(fn, 'verify');
  return verify(input as any);
}) as EngineHandle['run'];

async function httpStatusOf(p: Promise<unknown> | unknown): Promise<number | null> {
  try { await p; return null; } catch (e) { return e instanceof HttpError ? e.status : -1; }
}

function call(route: RouteDef, body: Record<string, unknown>) {
  const b = { ...body };
  const errors = validator.check(REQ, b, 'body');
  if (errors.length) throw new Error('request schema rejected: ' + JSON.stringify(errors));
  // the kernel renders the wire body from the reply's verdict once the hooks are done
  return Promise.resolve(route.handler({ body: b, signal: new AbortController().signal } as any)).then(renderVerdict);
}

t.test('route declaration: POST /verify/sql, apiKey, verify:read, a verification route, worker module', async (t) => {
  const { route, engines } = mount(inProcess);
  t.equal(route.method, 'POST');
  t.equal(route.path, '/verify/sql');
  t.equal(route.auth, 'apiKey');
  t.equal(route.scope, 'verify:read');
  t.same(route.verification, { attest: false });
  t.equal(route.schema?.body, 'https://proofgate.dev/schemas/sql/verify.request.json');
  t.equal(engines[0].name, 'sql');
  t.match(String(engines[0].module), /engine\.js$/);
});

t.test('request schema: required fields, defaults, caps', async (t) => {
  const ok: Record<string, unknown> = { query: 'SELECT 1', schema_ddl: SHOP };
  t.ok(validateReq(ok));
  t.equal(ok.dialect, 'sqlite');
  t.equal(ok.allow_writes, false);
  t.notOk(validateReq({ schema_ddl: SHOP }), 'query required');
  t.notOk(validateReq({ query: 'SELECT 1' }), 'schema_ddl required');
  t.notOk(validateReq({ query: 'x'.repeat(20_001), schema_ddl: SHOP }), 'query cap');
  t.notOk(validateReq({ query: 'SELECT 1', schema_ddl: SHOP, allow_writes: 'yes' }), 'allow_writes boolean');
  t.notOk(validateReq({ query: ' \n', schema_ddl: SHOP }), 'whitespace-only query');
  t.notOk(validateReq({ query: 'SELECT 1', schema_ddl: '\t' }), 'whitespace-only schema_ddl');
  t.ok(validateReq({ query: `SELECT '${'\u{1D465}'.repeat(19_000)}'`, schema_ddl: SHOP }), 'the cap counts code points, not UTF-16 units');
});

t.test('verdict bodies: malicious, clean and invalid all match the response schema', async (t) => {
  const { route } = mount(inProcess);
  const mal = await call(route, { query: 'SELECT * FROM users WHERE id = 1 OR 1=1', schema_ddl: SHOP });
  const body = mal.body as any;
  t.equal(mal.status, 200);
  t.equal(body.status, 'VERIFIED');
  t.equal(body.admission, 'BLOCKED');
  t.equal(body.malicious_classification, true, 'legacy flag copied to top level');
  t.equal(body.developer_fields.is_valid, false);
  t.same(resErrors(body), []);
  const clean = (await call(route, { query: 'SELECT name FROM users', schema_ddl: SHOP, dialect: 'postgres' })).body as any;
  t.equal(clean.admission, 'ADMIT');
  t.equal(clean.developer_fields.dialect, 'postgresql', 'alias mapped explicitly');
  t.same(resErrors(clean), []);
  const blockedBody = (await call(route, { query: 'SELEC 1', schema_ddl: SHOP })).body as any;
  t.equal(blockedBody.status, 'BLOCKED');
  t.equal(blockedBody.constraint_id, 'sql_verifier.parse_error');
  t.equal(blockedBody.proof_ref, null);
  t.same(resErrors(blockedBody), []);
});

t.test('unknown dialect is a 400 problem', async (t) => {
  const { route } = mount(inProcess);
  t.equal(await httpStatusOf(call(route, { query: 'SELECT 1', schema_ddl: SHOP, dialect: 'oracle' })), 400);
  for (const d of ['mssql', 'sqlserver', 'tsql', 'mariadb', 'bigquery', 'snowflake', 'SQLite', 'postgresql']) {
    const r = (await call(route, { query: 'SELECT 1', schema_ddl: 'CREATE TABLE t (a INT)', dialect: d })).body as any;
    t.equal(r.status, 'VERIFIED', `${d} accepted and parsed`);
    t.equal(r.admission, 'ADMIT');
  }
});

t.test('worker timeout or crash fails closed: BLOCKED, never VERIFIED; overload is 503', async (t) => {
  const failing = (kind: string) => (async () => { throw new FakeEngineError(kind); }) as unknown as EngineHandle['run'];
  const timeout = (await call(mount(failing('timeout')).route, { query: 'SELECT 1', schema_ddl: SHOP })).body as any;
  t.equal(timeout.status, 'BLOCKED');
  t.equal(timeout.admission, 'BLOCKED');
  t.equal(timeout.constraint_id, 'sql_verifier.complexity_limit_exceeded');
  t.equal(timeout.proof_ref, null);
  const crash = (await call(mount(failing('crashed')).route, { query: 'SELECT 1', schema_ddl: SHOP })).body as any;
  t.equal(crash.status, 'BLOCKED');
  t.equal(crash.constraint_id, 'sql_verifier.execution_error');
  const other = (await call(mount((async () => { throw new Error('boom'); }) as unknown as EngineHandle['run']).route, { query: 'SELECT 1', schema_ddl: SHOP })).body as any;
  t.equal(other.status, 'BLOCKED');
  t.equal(await httpStatusOf(call(mount(failing('unavailable')).route, { query: 'SELECT 1', schema_ddl: SHOP })), 503);
  const forged = (async () => ({ status: 'VERIFIED', agent_message: 'x', developer_fields: {}, proof_ref: null })) as unknown as EngineHandle['run'];
  const f = (await call(mount(forged).route, { query: 'SELECT 1', schema_ddl: SHOP })).body as any;
  t.equal(f.status, 'BLOCKED', 'a VERIFIED without proof_ref from the worker is refused');
});

t.test('verifier.sql service for batch: same verdicts, bad items become BLOCKED', async (t) => {
  const { services } = mount(inProcess);
  const v = services.get('verifier.sql') as { verify(i: Record<string, unknown>): Promise<any> };
  t.ok(v, 'verifier.sql provided');
  const mal = await v.verify({ query: 'SELECT name FROM users; DROP TABLE users', schema_ddl: SHOP });
  t.equal(mal.status, 'VERIFIED');
  t.equal(mal.admission, 'BLOCKED');
  t.equal(mal.developer_fields.malicious_classification, true);
  const clean = await v.verify({ query: 'SELECT name FROM users', schema_ddl: SHOP, dialect: 'mssql' });
  t.equal(clean.admission, 'ADMIT');
  t.equal((await v.verify({ query: 'SELECT 1' })).developer_fields.constraint_id, 'sql_verifier.schema_parse_error');
  t.equal((await v.verify({ query: 'SELECT 1', schema_ddl: SHOP, dialect: 'oracle' })).status, 'BLOCKED');
  t.equal((await v.verify({ query: 42, schema_ddl: SHOP })).status, 'BLOCKED');
  t.equal((await v.verify({ query: 'SELECT 1', schema_ddl: SHOP, allow_writes: 'yes' })).status, 'BLOCKED');
  const blank = await v.verify({ query: '  ', schema_ddl: SHOP });
  t.equal(blank.developer_fields.constraint_id, 'sql_verifier.parse_error', 'whitespace-only query, as the route refuses it');
  t.same(blank.developer_fields.errors, [{ field: '/body/query', message: 'must match pattern "\\S"' }]);
  const extra = await v.verify({ query: 'SELECT 1', schema_ddl: SHOP, dialekt: 'pg' });
  t.match(extra.agent_message, /dialekt is not an allowed property/, 'unknown fields are refused, not ignored');
  const item = { query: 'SELECT name FROM users', schema_ddl: SHOP };
  await v.verify(item);
  t.same(item, { query: 'SELECT name FROM users', schema_ddl: SHOP }, "the schema's defaults do not leak into the caller's item");
  const failing = mount((async () => { throw new FakeEngineError('crashed'); }) as unknown as EngineHandle['run']);
  const crashed = await (failing.services.get('verifier.sql') as any).verify({ query: 'SELECT 1', schema_ddl: SHOP });
  t.equal(crashed.status, 'BLOCKED');
  t.equal(crashed.proof_ref, null);
});
