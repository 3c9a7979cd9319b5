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
    // a hex literal compared with a string is the string of its bytes (the quote-free injection)
    for (const tail of ["0x61646d696e = 'admin'", "X'31' = '1'", "'a' = 0x61"]) await expectTautology(t, W + tail, dialect);
    await expectClean(t, W + "0x62 = 'a'", dialect);
  }
  // SQLite compares TEXT with INTEGER by storage class and strings with BINARY: false
  for (const tail of ["'a' = 0", "'admin' = 'ADMIN'"]) await expectClean(t, W + tail, 'sqlite');
});

t.test('PostgreSQL reads a quoted literal as the type its position needs', async (t) => {
  for (const tail of ["'yes'", "'on'", "'t'", "'true'::boolean", "'y'::bool", "1 = '01'", "2.5 = ' 2.50 '"]) await expectTautology(t, W + tail, 'postgresql');
  // false there
  for (const tail of ["'no'", "'off'::bool", "1 = '02'", "'a' = 'A'"]) await expectClean(t, W + tail, 'postgresql');
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

t.test('an OR branch that cannot depend on the row is true for every row or for none', async (t) => {
  // functions the folder does not know: each of these is true in its database
  for (const [tail, dialect] of [
    ['max(1, 2)', 'sqlite'], ["instr('abc', 'a')", 'sqlite'], ['hex(1)', 'sqlite'], ["typeof(1) = 'integer'", 'sqlite'],
    ["trim(' 1 ')", 'sqlite'], ['(1, 2) = (1, 2)', 'sqlite'], ['(SELECT max(1))', 'sqlite'], ['(SELECT 1 UNION SELECT 1)', 'sqlite'],
    ['GREATEST(1, 0)', 'mysql'], ["ASCII('a')", 'mysql'], ['@@version', 'mysql'],
    ["char_length('a') = 1", 'postgresql'], ['1 = ANY(ARRAY[1])', 'postgresql'], ['now() > 0', 'postgresql'],
  ]) await expectTautology(t, W + tail, dialect);
  // unbounded writes: a row-independent WHERE deletes every row or none
  const del = await run('DELETE FROM users WHERE max(1, 2)', { allow_writes: true });
  t.ok(del.rules.includes('unbounded_write'), del.rules.join(','));
  // decided false, or depending on the row, the caller or the data: not reported
  for (const [tail, dialect] of [
    ["'a' GLOB 'b*'", 'sqlite'], ["'abc' LIKE 'b%'", 'sqlite'], ["X'41'", 'sqlite'], ['9007199254740993 = 9007199254740992', 'sqlite'],
    ['?', 'sqlite'], [':flag = 1', 'sqlite'], ['$1 = 1', 'postgresql'], ['@flag = 1', 'mysql'], ['random() > 0', 'sqlite'],
    ['EXISTS (SELECT 1 FROM orders)', 'sqlite'], ['max(id, 2) = 3', 'sqlite'], ["'abc' LIKE 'A%'", 'postgresql'],
  ]) await expectClean(t, W + tail, dialect);
  await expectTautology(t, W + "'abc' LIKE 'A%'", 'sqlite');
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
