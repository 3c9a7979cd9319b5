import t, { type Test } from 'tap';
import sql from '../../../plugins/engines/sql/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { run, SHOP } from './fixtures/helpers.js';

/**
 * Text that node-sql-parser reads one way and the dialect's database another. Every malicious
 * query here was admitted (VERIFIED, ADMIT) before its fix: the rules judged the parser's reading.
 */

async function expectRules(t: Test, q: string, dialect: string, rules: string[]) {
  const { verdict, rules: got, r } = await run(q, { dialect });
  t.equal(verdict, 'malicious', `malicious (${dialect}): ${q}`);
  for (const rule of rules) t.ok(got.includes(rule), `${rule} in [${got.join(',')}] for (${dialect}): ${q}`);
  t.equal(r.admission, 'BLOCKED');
}

async function expectNotAdmitted(t: Test, q: string, dialect: string) {
  const { r } = await run(q, { dialect });
  t.not(r.admission, 'ADMIT', `not admitted (${dialect}): ${q}`);
}

async function expectClean(t: Test, q: string, dialect: string) {
  const { verdict, rules, r } = await run(q, { dialect });
  t.equal(verdict, 'clean', `clean (${dialect}): ${q} (${rules.join(',')})`);
  t.equal(r.admission, 'ADMIT');
}

t.test("a backslash does not escape a quote in SQLite, PostgreSQL or SQL Server literals", async (t) => {
  for (const dialect of ['sqlite', 'postgresql', 'transactsql']) {
    // the database ends the literal at \' and runs what follows; the parser read one literal up to x'
    await expectRules(t, "SELECT name FROM users WHERE name = 'a\\'; DROP TABLE users; -- x'", dialect, ['stacked_statements', 'ddl_statement']);
    await expectRules(t, "SELECT name FROM users WHERE name = 'a\\' OR 1=1 -- x'", dialect, ['tautology']);
    await expectRules(t, "SELECT name FROM users WHERE name = 'a\\' UNION SELECT password_hash FROM users -- x'", dialect, ['credential_read']);
    // its literal is unterminated for the database: never admitted
    await expectNotAdmitted(t, "SELECT name FROM users WHERE name = 'a\\' OR 1=1 OR name = '", dialect);
    // a backslash in a literal is just a character there
    await expectClean(t, "SELECT name FROM users WHERE name = 'C:\\dir\\' AND id = 2", dialect);
  }
  // PostgreSQL's E'…' strings do escape with a backslash: one literal, no OR
  await expectClean(t, "SELECT name FROM users WHERE name = E'a\\' OR 1=1 OR name = '", 'postgresql');
  await expectClean(t, "SELECT name FROM users WHERE name = $$a'$$ AND id = 2", 'postgresql');
  // MySQL honours the backslash: the text after it is inside the literal
  await expectClean(t, "SELECT name FROM users WHERE name = 'a\\' OR 1=1 OR name = '", 'mysql');
});

t.test('a backslash does not escape a double quote in an identifier there either', async (t) => {
  for (const dialect of ['sqlite', 'postgresql', 'transactsql']) {
    await expectRules(t, 'SELECT "x\\" FROM users; DROP TABLE users; -- y"', dialect, ['stacked_statements', 'ddl_statement']);
    await expectClean(t, 'SELECT name AS "a\\b" FROM users WHERE id = 2', dialect);
  }
});

t.test('MySQL starts a -- comment only before a space or a control character', async (t) => {
  for (const dialect of ['mysql', 'mariadb']) {
    // `--1` is minus minus one to MySQL: the OR is read
    await expectRules(t, 'SELECT name FROM users WHERE id = 1 --1 OR 1=1', dialect, ['tautology']);
    await expectRules(t, 'SELECT name FROM users WHERE id = 1 --1 UNION SELECT password_hash FROM users', dialect, ['credential_read']);
    await expectRules(t, 'SELECT name FROM users WHERE id = 1 --1; DROP TABLE users', dialect, ['stacked_statements', 'ddl_statement']);
    // comments MySQL does start stay notes
    await expectClean(t, 'SELECT name FROM users WHERE id = 2 -- OR 1=1', dialect);
    await expectClean(t, 'SELECT name FROM users WHERE id = 2 --\tnote', dialect);
    await expectClean(t, 'SELECT name FROM users WHERE id = 2 --', dialect);
    await expectClean(t, 'SELECT name FROM users WHERE id = 2 # OR 1=1', dialect);
    await expectClean(t, "SELECT name FROM users WHERE name = '#--x' OR name = 'y'", dialect);
    await expectClean(t, 'SELECT name FROM users WHERE id = 3 --1', dialect);
  }
  // every other dialect starts a comment at any --
  await expectClean(t, 'SELECT name FROM users WHERE id = 1 --1 OR 1=1', 'postgresql');
});

t.test('MariaDB runs /*M! … */ comments', async (t) => {
  for (const dialect of ['mariadb', 'mysql']) {
    await expectRules(t, 'SELECT name FROM users WHERE id = 1 /*M! OR 1=1 */', dialect, ['executable_comment']);
    await expectRules(t, 'SELECT name FROM users WHERE id = 1 /*M!100100 UNION SELECT password_hash FROM users */', dialect, ['executable_comment']);
    await expectClean(t, 'SELECT name FROM users WHERE id = 1 /* Monthly report */', dialect);
    await expectClean(t, "SELECT name FROM users WHERE name = '/*M! x */'", dialect);
  }
});

t.test('PostgreSQL functions that run SQL text, dump tables or reach the server are dangerous', async (t) => {
  for (const q of [
    // the catalog read is inside a string the rules never parse
    "SELECT query_to_xml('select rolpassword from pg_authid', true, true, '')",
    "SELECT name FROM users WHERE id = 1 AND query_to_xml('delete from users returning 1', true, true, '') IS NOT NULL",
    "SELECT * FROM ts_stat('select to_tsvector(rolpassword) from pg_authid')",
    "SELECT table_to_xml('pg_authid', true, false, '')",
    "SELECT pg_catalog.database_to_xml(true, false, '')",
    "SELECT current_setting('data_directory')",
    "SELECT set_config('search_path', 'evil', false)",
    'SELECT pg_terminate_backend(1)',
    "SELECT setval('users_id_seq', 1)",
    'SELECT lo_get(16401)',
  ]) await expectRules(t, q, 'postgresql', ['dangerous_function']);
  // ordinary functions stay clean
  await expectClean(t, "SELECT upper(name), to_char(created_at::date, 'YYYY') FROM users WHERE id = 2", 'postgresql');
});

t.test('PostgreSQL and SQL Server block comments nest', async (t) => {
  for (const dialect of ['postgresql', 'transactsql']) {
    // the whole /* /* */ ' */ is a comment there: the quote inside starts no string and the -- is read
    await expectRules(t, "SELECT name FROM users WHERE name = 'admin' /* /* */ ' */ -- AND id = 5", dialect, ['comment_truncation']);
    await expectClean(t, 'SELECT name FROM users WHERE id = 2 /* a /* b */ c */', dialect);
  }
  // PostgreSQL does not run /*! … */; nested inside a comment it is text
  await expectClean(t, 'SELECT name FROM users WHERE id = 2 /* /* */ /*! OR 1=1 */ */', 'postgresql');
});

t.test('only a SELECT is a read: SHOW, DESCRIBE and EXPLAIN are admin statements', async (t) => {
  for (const q of ['SHOW GRANTS', 'SHOW DATABASES', 'SHOW TABLES', 'DESCRIBE users', 'EXPLAIN SELECT * FROM mysql.user']) {
    await expectRules(t, q, 'mysql', ['admin_statement']);
  }
  // SQLite's pragma_* table-valued functions are its PRAGMA statements
  await expectRules(t, "SELECT * FROM pragma_table_info('users')", 'sqlite', ['system_catalog']);
  await expectClean(t, 'SELECT name FROM users WHERE id = 2', 'mysql');
});

t.test('a XOR the mysql grammar groups unlike MySQL is not read', async (t) => {
  for (const dialect of ['mysql', 'mariadb']) {
    // MySQL: NOT (id = 5), every row but one; the tree: id = (5 XOR 1)
    for (const q of ['SELECT name FROM users WHERE id = 5 XOR 1', "SELECT name FROM users WHERE id = 1 AND name = 'a' XOR id = 2", 'SELECT name FROM users WHERE NOT id = 1 XOR id = 2']) {
      const { r, f } = await run(q, { dialect });
      t.equal(r.status, 'BLOCKED', q);
      t.equal(f.constraint_id, 'sql_verifier.parse_error');
      t.not(r.admission, 'ADMIT');
    }
    // parenthesised operands are grouped the same way by both
    await expectClean(t, 'SELECT name FROM users WHERE (id = 1) XOR (id = 2)', dialect);
    await expectClean(t, 'SELECT name FROM users WHERE id = 3 OR (id = 1) XOR (id = 2)', dialect);
  }
});

t.test('MySQL server variables and error-based exfiltration functions', async (t) => {
  for (const dialect of ['mysql', 'mariadb']) {
    await expectRules(t, 'SELECT @@datadir', dialect, ['system_catalog']);
    await expectRules(t, 'SELECT name FROM users WHERE id = 2 AND @@session.sql_mode IS NOT NULL', dialect, ['system_catalog']);
    await expectRules(t, "SELECT name FROM users WHERE id = 1 AND EXTRACTVALUE(1, CONCAT(0x7e, (SELECT name FROM users LIMIT 1)))", dialect, ['dangerous_function']);
    await expectRules(t, "SELECT name FROM users WHERE id = 1 AND UPDATEXML(1, CONCAT(0x7e, 'x'), 1)", dialect, ['dangerous_function']);
    await expectRules(t, "SELECT GET_LOCK('x', 10)", dialect, ['dangerous_function']);
    // a user variable is the caller's own value
    await expectClean(t, 'SELECT name FROM users WHERE id = @uid', dialect);
  }
});

t.test('POST /verify/sql judges the database reading', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), sql] });
  t.teardown(() => s.close());
  for (const [query, dialect, rule] of [
    ["SELECT name FROM users WHERE name = 'a\\'; DROP TABLE users; -- x'", 'postgresql', 'ddl_statement'],
    ['SELECT name FROM users WHERE id = 1 --1 OR 1=1', 'mysql', 'tautology'],
  ]) {
    const res = await s.request('POST', '/v1/verify/sql', { apiKey: TEST_API_KEY, body: { query, schema_ddl: SHOP, dialect } });
    t.equal(res.status, 200);
    t.equal(res.body.status, 'VERIFIED');
    t.equal(res.body.admission, 'BLOCKED', query);
    t.equal(res.body.developer_fields.malicious_classification, true);
    t.ok(res.body.developer_fields.issues.some((i: { rule: string }) => i.rule === rule), `${rule}: ${query}`);
  }
});
