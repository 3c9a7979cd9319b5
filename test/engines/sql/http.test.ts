import t from 'tap';
import sql from '../../../plugins/engines/sql/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { SHOP } from './fixtures/helpers.js';

t.test('POST /verify/sql through the kernel and the worker pool', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), sql] });
  t.teardown(() => s.close());

  const mal = await s.request('POST', '/v1/verify/sql', { apiKey: TEST_API_KEY, body: { query: "SELECT * FROM users WHERE name = '' OR 1=1", schema_ddl: SHOP } });
  t.equal(mal.status, 200);
  t.equal(mal.body.status, 'VERIFIED');
  t.equal(mal.body.admission, 'BLOCKED');
  t.equal(mal.body.developer_fields.malicious_classification, true);
  t.match(mal.body.proof_ref, /^sha256:[0-9a-f]{64}$/);

  const clean = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query: 'SELECT name FROM users WHERE id = 1', schema_ddl: SHOP } });
  t.equal(clean.status, 200);
  t.equal(clean.body.admission, 'ADMIT');
  t.equal(clean.body.is_valid, true);
  t.equal(clean.body.developer_fields.dry_run.performed, true);

  // the sqlite schema is read back from SQLite, whose own sqlite_* tables stay catalogs
  const seq = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query: 'SELECT name, seq FROM sqlite_sequence', schema_ddl: 'CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT)' } });
  t.equal(seq.body.admission, 'BLOCKED');
  t.equal(seq.body.developer_fields.schema_source, 'sqlite');
  t.same(seq.body.developer_fields.issues.map((i: { rule: string }) => i.rule), ['system_catalog']);

  const parse = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query: 'SELECT name FROM users WHERE', schema_ddl: SHOP } });
  t.equal(parse.body.status, 'BLOCKED');
  t.equal(parse.body.constraint_id, 'sql_verifier.parse_error');

  const noKey = await s.request('POST', '/verify/sql', { body: { query: 'SELECT 1', schema_ddl: SHOP } });
  t.equal(noKey.status, 401);

  const missing = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query: 'SELECT 1' } });
  t.equal(missing.status, 400);

  const dialect = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query: 'SELECT 1', schema_ddl: SHOP, dialect: 'oracle' } });
  t.equal(dialect.status, 400);
  t.match(dialect.headers.get('content-type') ?? '', /application\/problem\+json/);
});

t.test('a key without verify:read is refused', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(['attestation:read']), sql] });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query: 'SELECT 1', schema_ddl: SHOP } });
  t.equal(r.status, 403);
});
