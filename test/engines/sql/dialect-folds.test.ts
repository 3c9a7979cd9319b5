import t, { type Test } from 'tap';
import sql from '../../../plugins/engines/sql/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { run, SHOP } from './fixtures/helpers.js';

/**
 * OR branches the dialect's database folds to true although SQLite's folding (the one the engine
 * used for every dialect) does not. Every tautology here was admitted (VERIFIED, ADMIT) before.
 */

async function expectTautology(t: Test, q: string, dialect: string) {
  const { verdict, rules, r } = await run(q, { dialect });
  t.equal(verdict, 'malicious', `malicious (${dialect}): ${q}`);
  t.ok(rules.includes('tautology'), `tautology in [${rules.join(',')}] (${dialect}): ${q}`);
  t.equal(r.admission, 'BLOCKED');
}

async function expectClean(t: Test, q: string, dialect: string) {
  const { verdict, rules, r } = await run(q, { dialect });
  t.equal(verdict, 'clean', `clean (${dialect}): ${q} (${rules.join(',')})`);
  t.equal(r.admission, 'ADMIT');
}

const W = 'SELECT name FROM users WHERE id = 5 OR ';

t.test('MySQL compares a string with a number as numbers and strings without case', async (t) => {
  for (const dialect of ['mysql', 'mariadb']) {
    for (const tail of ["'a' = 0", "'1abc' = 1", "'admin' = 'ADMIN'", "'x' <> 1"]) await expectTautology(t, W + tail, dialect);
    // false there too
    for (const tail of ["'a' = 1", "'2abc' = 1", "'a' = 'b'"]) await expectClean(t, W + tail, dialect);
  }
  // SQLite compares TEXT with INTEGER by storage class and strings with BINARY: false
  for (const tail of ["'a' = 0", "'admin' = 'ADMIN'"]) await expectClean(t, W + tail, 'sqlite');
});

t.test('PostgreSQL reads a quoted literal as the type its position needs', async (t) => {
  for (const tail of ["'yes'", "'on'", "'t'", "'true'::boolean", "'y'::bool", "1 = '01'", "2.5 = ' 2.50 '"]) await expectTautology(t, W + tail, 'postgresql');
  // false, or an error that fails the query
  for (const tail of ["'no'", "'off'::bool", "1 = '02'", "1 = 'abc'", "'a' = 'A'", "'o'"]) await expectClean(t, W + tail, 'postgresql');
  // SQLite reads 'yes' by its numeric prefix: 0
  await expectClean(t, W + "'yes'", 'sqlite');
});

t.test('NULLIF, IF/IIF and ILIKE are folded', async (t) => {
  await expectTautology(t, W + 'NULLIF(1, 2) = 1', 'postgresql');
  await expectTautology(t, W + "'a' ILIKE '%'", 'postgresql');
  await expectTautology(t, W + 'IF(1, 1, 0)', 'mysql');
  await expectTautology(t, W + 'IIF(1, 1, 0)', 'sqlite');
  await expectClean(t, W + 'NULLIF(1, 1) = 1', 'postgresql');
  await expectClean(t, W + 'IF(0, 1, 0)', 'mysql');
  await expectClean(t, W + 'IF(id = 3, 1, 0)', 'mysql');
});

t.test("POST /verify/sql blocks MySQL's 'a' = 0", async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), sql] });
  t.teardown(() => s.close());
  const query = "SELECT name FROM users WHERE name = 'x' OR 'a' = 0";
  const res = await s.request('POST', '/v1/verify/sql', { apiKey: TEST_API_KEY, body: { query, schema_ddl: SHOP, dialect: 'mysql' } });
  t.equal(res.status, 200);
  t.equal(res.body.status, 'VERIFIED');
  t.equal(res.body.admission, 'BLOCKED');
  t.same([...new Set(res.body.developer_fields.issues.map((i: { rule: string }) => i.rule))], ['tautology']);
});
