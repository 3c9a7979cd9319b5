import t, { type Test } from 'tap';
import { run } from '../fixtures/helpers.js';

async function expectRule(t: Test, q: string, rule: string, extra = {}) {
  const { verdict, rules, r } = await run(q, extra);
  t.equal(verdict, 'malicious', `malicious: ${q}`);
  t.ok(rules.includes(rule), `${rule} in ${rules.join(',')} for: ${q}`);
  t.equal(r.status, 'VERIFIED');
  t.equal(r.admission, 'BLOCKED');
  t.match(r.proof_ref, /^sha256:[0-9a-f]{64}$/);
  t.equal((r.developer_fields as any).is_valid, false);
}
async function expectClean(t: Test, q: string, extra = {}) {
  const { verdict, rules, r } = await run(q, extra);
  t.equal(verdict, 'clean', `clean: ${q} (${rules.join(',')})`);
  t.equal(r.admission, 'ADMIT');
}

t.test('stacked statements come from the parser, not from a ; in a literal', async (t) => {
  await expectRule(t, 'SELECT name FROM users; SELECT name FROM products', 'stacked_statements');
  await expectRule(t, 'SELECT name FROM users WHERE id = 1;/**/DROP TABLE users', 'stacked_statements');
  await expectClean(t, "SELECT name FROM users WHERE name = 'a; DROP TABLE users'");
  await expectClean(t, "SELECT name FROM users WHERE name = 'x''; DELETE FROM users; --'");
  await expectClean(t, 'SELECT name FROM users;');
});

t.test('tautologies: an OR branch that is constant-true', async (t) => {
  for (const q of [
    'SELECT name FROM users WHERE id = 5 OR 1=1',
    "SELECT name FROM users WHERE id = 5 OR 'a'='a'",
    'SELECT name FROM users WHERE id = 5 OR TRUE',
    'SELECT name FROM users WHERE id = 5 OR 1',
    'SELECT name FROM users WHERE id = 5 OR 2>1',
    'SELECT name FROM users WHERE id = 5 OR name = name',
    'SELECT name FROM users WHERE id = 5 OR NOT 0',
    'SELECT name FROM users WHERE id = 5 OR 3 IN (1,2,3)',
    'SELECT name FROM users WHERE id = 5 OR 2 BETWEEN 1 AND 3',
    'SELECT name FROM users WHERE id = 5 OR 1+1=2',
    "SELECT name FROM users WHERE id = 5 OR '1abc'",
    'sElEcT name FrOm users wHeRe id = 5 oR 1=1',
    'SELECT name FROM users/**/WHERE/**/id=5/**/OR/**/1=1',
    'SELECT u.name FROM users u JOIN orders o ON o.user_id = u.id OR 1=1',
    'SELECT name FROM users WHERE id IN (SELECT user_id FROM orders WHERE total > 1 OR 1=1)',
    'WITH x AS (SELECT id FROM users WHERE id = 2 OR 1=1) SELECT id FROM x',
    'SELECT status FROM orders GROUP BY status HAVING COUNT(*) > 1 OR 1=1',
  ]) await expectRule(t, q, 'tautology');
});

t.test('constant predicates that are not always-true OR branches stay clean', async (t) => {
  await expectClean(t, 'SELECT id FROM orders WHERE total = 10 OR total = 20');
  await expectClean(t, "SELECT name FROM users WHERE id = 5 OR 'abc'"); // 'abc' is 0 in SQLite: false
  await expectClean(t, 'SELECT name FROM users WHERE id = 5 OR 1=0');
  await expectClean(t, 'SELECT name FROM users WHERE 1=1 AND id = 5'); // query-builder prefix, no OR
  await expectClean(t, "SELECT name FROM users WHERE name = 'x OR 1=1'");
  await expectClean(t, "SELECT name FROM users WHERE name = 'UNION SELECT password_hash FROM users'");
});

t.test('UNION against catalogs or tables outside the schema', async (t) => {
  await expectRule(t, 'SELECT name FROM users UNION SELECT sql FROM sqlite_master', 'system_catalog');
  await expectRule(t, 'SELECT name FROM users UNION SELECT name FROM sqlite_schema', 'system_catalog');
  await expectRule(t, 'SELECT name FROM users UNION SELECT name FROM secrets', 'union_exfiltration');
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 UNION SELECT table_name FROM information_schema.tables', 'system_catalog', { dialect: 'postgres' });
  await expectRule(t, 'SELECT name FROM users UNION SELECT usename FROM pg_catalog.pg_user', 'system_catalog', { dialect: 'postgresql' });
  await expectRule(t, 'SELECT name FROM users UNION SELECT user FROM mysql.user', 'system_catalog', { dialect: 'mysql' });
  await expectRule(t, 'SELECT name FROM users WHERE id IN (SELECT rowid FROM sqlite_master)', 'system_catalog');
  await expectClean(t, 'SELECT name FROM users UNION SELECT name FROM products');
});

t.test('time, file and code-loading functions and INTO OUTFILE', async (t) => {
  await expectRule(t, "SELECT load_extension('/tmp/x.so')", 'dangerous_function');
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 AND SLEEP(5)', 'dangerous_function', { dialect: 'mysql' });
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 AND BENCHMARK(1000000, 1)', 'dangerous_function', { dialect: 'mysql' });
  await expectRule(t, "SELECT LOAD_FILE('/etc/passwd')", 'dangerous_function', { dialect: 'mysql' });
  await expectRule(t, 'SELECT name FROM users WHERE pg_sleep(5) IS NULL', 'dangerous_function', { dialect: 'postgresql' });
  await expectRule(t, 'SELECT name FROM users WHERE id = (SELECT MAX(id) FROM orders WHERE sleep(3) = 0)', 'dangerous_function');
  await expectRule(t, "SELECT name INTO OUTFILE '/tmp/x' FROM users", 'file_write', { dialect: 'mysql' });
  await expectClean(t, "SELECT name FROM users WHERE name = 'sleep(5)'");
});

t.test('comment truncation, decided on tokens outside literals', async (t) => {
  await expectRule(t, "SELECT name FROM users WHERE name = 'admin'--' AND id = 2", 'comment_truncation');
  await expectRule(t, "SELECT name FROM users WHERE name = 'admin'/*' AND id = 2*/", 'comment_truncation');
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 -- AND email = 2', 'comment_truncation');
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 /* unterminated', 'comment_truncation');
  await expectRule(t, "SELECT name FROM users WHERE id = 1 #' AND 1", 'comment_truncation', { dialect: 'mysql' });
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 /*! OR 1=1 */', 'executable_comment', { dialect: 'mysql' });
  await expectClean(t, 'SELECT name FROM users -- list users');
  await expectClean(t, "SELECT name FROM users WHERE id = 1 -- it's a note");
  await expectClean(t, 'SELECT name FROM users WHERE id = 1 -- and then sort by name');
  await expectClean(t, "SELECT name FROM users WHERE name = '--'' AND id = 2'");
  await expectClean(t, 'SELECT /* columns */ name FROM users');
  await expectClean(t, 'SELECT name FROM users WHERE id = 1 # note', { dialect: 'mysql' });
});

t.test('comments and strings are not the query (issue 12 item 5)', async (t) => {
  // text inside a comment or a literal never yields a tautology or stacked statements
  await expectClean(t, 'SELECT id FROM users WHERE id = 1 -- OR 1=1');
  await expectClean(t, 'SELECT id FROM users WHERE id = 1 /* OR 1=1 */');
  await expectClean(t, 'SELECT id FROM users WHERE id = 1 # OR 1=1', { dialect: 'mysql' });
  await expectClean(t, 'SELECT id FROM users WHERE id = 1 -- ; DROP TABLE users');
  await expectClean(t, 'SELECT id FROM users WHERE id = 1 /* ; SELECT password_hash FROM users */');
  await expectClean(t, "SELECT id FROM users WHERE name = 'x'' OR 1=1; DROP TABLE users --'");
  // the same text outside the comment is the query
  await expectRule(t, 'SELECT id FROM users WHERE id = 1 OR 1=1', 'tautology');
  // a parse failure is not turned into stacked statements from the text
  const { r, rules } = await run('SELECT id FROM users; SELEC garbage');
  t.notOk(rules.includes('stacked_statements'), 'no stacked_statements without a tree');
  t.equal(r.admission, 'BLOCKED');
});

t.test('credential reads (projected credential columns; salary is not a credential)', async (t) => {
  await expectRule(t, 'SELECT name, password_hash FROM users', 'credential_read');
  await expectRule(t, 'SELECT * FROM users', 'credential_read');
  await expectRule(t, 'SELECT u.* FROM users u', 'credential_read');
  await expectRule(t, "SELECT name || ':' || PASSWORD_HASH FROM users", 'credential_read');
  await expectRule(t, 'SELECT (SELECT password_hash FROM users u2 WHERE u2.id = users.id) AS x FROM users', 'credential_read');
  await expectRule(t, 'SELECT id FROM products UNION SELECT password_hash FROM users', 'credential_read');
  await expectClean(t, 'SELECT name FROM users WHERE EXISTS (SELECT * FROM orders o WHERE o.user_id = users.id)');
  await expectClean(t, 'SELECT * FROM orders');
});

t.test('writes, DDL, DCL and admin statements when allow_writes is false', async (t) => {
  await expectRule(t, 'DROP TABLE users', 'ddl_statement');
  await expectRule(t, 'DELETE FROM orders', 'unbounded_write');
  await expectRule(t, 'DELETE FROM orders WHERE 1=1', 'unbounded_write');
  await expectRule(t, 'UPDATE users SET email = NULL WHERE id = 3', 'write_statement');
  await expectRule(t, "INSERT INTO users (id, name) VALUES (9, 'x')", 'write_statement');
  await expectRule(t, "REPLACE INTO users (id, name) VALUES (9, 'x')", 'write_statement');
  await expectRule(t, 'TRUNCATE TABLE orders', 'ddl_statement');
  await expectRule(t, 'ALTER TABLE users ADD COLUMN admin INTEGER', 'ddl_statement');
  await expectRule(t, 'CREATE TABLE x AS SELECT * FROM users', 'ddl_statement');
  await expectRule(t, "ATTACH DATABASE '/tmp/x.db' AS x", 'admin_statement');
  await expectRule(t, 'PRAGMA writable_schema = 1', 'admin_statement');
  await expectRule(t, 'GRANT ALL ON users TO public', 'admin_statement');
  await expectRule(t, 'GRANT SELECT ON users TO bob', 'dcl_statement', { dialect: 'postgresql' });
  await expectRule(t, 'dRoP tAbLe users', 'ddl_statement');
});

t.test('nested writes in CTEs are found even where the grammar rejects them', async (t) => {
  await expectRule(t, 'WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d', 'nested_write');
  await expectRule(t, 'WITH d AS (/**/DELETE FROM orders RETURNING id) SELECT id FROM d', 'nested_write');
  await expectRule(t, "WITH d AS (INSERT INTO users (id) VALUES (1) RETURNING id) SELECT id FROM d", 'nested_write', { dialect: 'postgresql' });
  // a write keyword inside a literal is not a statement
  const { verdict } = await run("WITH d AS (SELECT '(DELETE FROM orders)' AS s) SELECT s FROM d");
  t.equal(verdict, 'clean');
});

t.test('allow_writes admits bounded writes and still blocks destructive ones', async (t) => {
  const w = { allow_writes: true };
  await expectClean(t, "INSERT INTO users (id, name) VALUES (9, 'x')", w);
  await expectClean(t, 'DELETE FROM orders WHERE id = 3', w);
  await expectClean(t, "UPDATE users SET email = 'a@b' WHERE id = 3", w);
  await expectRule(t, 'DELETE FROM orders', 'unbounded_write', w);
  await expectRule(t, 'UPDATE orders SET total = 0 WHERE 1=1', 'unbounded_write', w);
  await expectRule(t, 'DROP TABLE users', 'ddl_statement', w);
  await expectRule(t, "ATTACH DATABASE 'x' AS y", 'admin_statement', w);
  const bad = await run("UPDATE users SET nme = 'x' WHERE id = 1", w);
  t.equal(bad.verdict, 'invalid');
  t.ok(bad.rules.includes('unknown_column'));
});

t.test('issues carry rule, message and a location with the statement index', async (t) => {
  const { f } = await run('SELECT name FROM users; DROP TABLE users');
  t.ok(f.issues.length >= 2);
  for (const i of f.issues) {
    t.type(i.rule, 'string');
    t.type(i.message, 'string');
    t.type(i.location.statement, 'number');
  }
  t.ok(f.issues.some((i: any) => i.rule === 'ddl_statement' && i.location.statement === 1));
});

t.test('false negatives found while probing, now folded as constants', async (t) => {
  for (const q of [
    'SELECT name FROM users WHERE id = 1 OR (SELECT 1)',
    'SELECT name FROM users WHERE id = 1 OR 1 IN (SELECT 1)',
    'SELECT name FROM users WHERE id = 1 OR EXISTS (SELECT 1)',
    'SELECT name FROM users WHERE id = 1 OR 0x1',
    'SELECT name FROM users WHERE id = 1 OR NULL IS NULL',
    'SELECT name FROM users WHERE id = 1 OR 1 IS NOT NULL',
    'SELECT name FROM users WHERE id = 1 OR coalesce(1,0)',
    'SELECT name FROM users WHERE id = 1 OR abs(-1)',
    'SELECT name FROM users WHERE id = 1 OR CAST(1 AS INTEGER)',
    "SELECT name FROM users WHERE id = 1 OR lower('A') = 'a'",
    'SELECT name FROM users u WHERE u.id = 1 OR u.id = u.id',
  ]) await expectRule(t, q, 'tautology');
  // data-dependent or false: not a tautology
  for (const q of [
    "SELECT name FROM users WHERE id = 1 OR X'41'",
    'SELECT name FROM users WHERE id = 1 OR EXISTS (SELECT 1 FROM orders)',
    'SELECT name FROM users WHERE id = 1 OR (SELECT 0)',
    'SELECT name FROM users WHERE id = 1 OR NULL',
    'SELECT name FROM users WHERE id = 1 OR email IS NOT NULL',
  ]) await expectClean(t, q);
});

t.test('EXISTS (SELECT * …) does not project credentials (sqlite returns EXISTS as a function node)', async (t) => {
  await expectClean(t, 'SELECT name FROM users WHERE EXISTS (SELECT * FROM users u2 WHERE u2.id = 3)');
});

t.test('dialect operators and whole-filter tautologies found while probing', async (t) => {
  await expectRule(t, 'SELECT name FROM users WHERE id = 1 || 1=1', 'tautology', { dialect: 'mysql' });
  await expectClean(t, 'SELECT name FROM users WHERE id = 1 || 1=1'); // SQLite: || concatenates, id = ('11' = 1)
  await expectRule(t, 'SELECT name FROM users WHERE NOT (id = 1 AND 1=0)', 'tautology');
  await expectRule(t, 'SELECT name FROM users WHERE id = 2 OR NOT (1=0)', 'tautology');
  await expectRule(t, 'SELECT name FROM users WHERE id = id', 'tautology');
  await expectClean(t, 'SELECT name FROM users WHERE 1=1');
  await expectClean(t, 'SELECT name FROM users WHERE NOT (id = 1)');
});
