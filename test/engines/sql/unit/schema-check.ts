import t from 'tap';
import { verify } from '../../../../plugins/engines/sql/engine.js';
import { proofRefOf } from '../../../../core/verdict.js';
import { sha256Hex } from '../../../../core/json/canonical.js';
import { run, SHOP } from '../fixtures/helpers.js';

t.test('name resolution: aliases, CTEs, derived tables, select-list aliases, correlation', async (t) => {
  for (const q of [
    'SELECT u.name AS n FROM users u ORDER BY n',
    'WITH big AS (SELECT user_id, SUM(total) AS t FROM orders GROUP BY user_id) SELECT u.name, big.t FROM users u JOIN big ON big.user_id = u.id',
    'SELECT x.n FROM (SELECT name AS n FROM users) x WHERE x.n IS NOT NULL',
    'SELECT name FROM users WHERE EXISTS (SELECT 1 FROM orders WHERE orders.user_id = users.id)',
    'SELECT status, COUNT(*) AS c FROM orders GROUP BY status HAVING c > 1 ORDER BY c DESC',
    'SELECT name, RANK() OVER (PARTITION BY category ORDER BY price DESC) AS r FROM products',
    'WITH a AS (SELECT id FROM users), b AS (SELECT id FROM a) SELECT id FROM b',
    'SELECT o.id FROM orders o JOIN users USING (id)',
  ]) {
    const { verdict, rules } = await run(q);
    t.equal(verdict, 'clean', `${q} → ${rules.join(',')}`);
  }
});

t.test("a CTE's declared column list names its columns (the grammars return each name as a column reference)", async (t) => {
  for (const dialect of ['sqlite', 'postgresql', 'mysql', 'transactsql', 'snowflake']) {
    const ok = await run('WITH x(uid, n) AS (SELECT id, name FROM users) SELECT uid, n FROM x WHERE n IS NOT NULL', { dialect });
    t.equal(ok.verdict, 'clean', `${dialect}: ${ok.rules.join(',')}`);
    const bad = await run('WITH x(uid) AS (SELECT id FROM users) SELECT id FROM x', { dialect });
    t.same(bad.rules, ['unknown_column'], `${dialect}: the body's own name is not the CTE's`);
  }
});

t.test('unknown tables and columns are invalid (not malicious), with an issue each', async (t) => {
  const cases: Array<[string, string]> = [
    ['SELECT name FROM customers', 'unknown_table'],
    ['SELECT nickname FROM users', 'unknown_column'],
    ['SELECT u.nickname FROM users u', 'unknown_column'],
    ['SELECT x.name FROM users u', 'unknown_column'],
    ['SELECT name FROM users ORDER BY nosuch', 'unknown_column'],
    ['SELECT x.nope FROM (SELECT name AS n FROM users) x', 'unknown_column'],
    ['WITH c AS (SELECT id FROM users) SELECT name FROM c', 'unknown_column'],
    ['SELECT name FROM users WHERE id IN (SELECT user_id FROM invoices)', 'unknown_table'],
    ['SELECT u.name FROM users u JOIN invoices i ON i.user_id = u.id', 'unknown_table'],
  ];
  for (const [q, rule] of cases) {
    const { r, f, verdict, rules } = await run(q);
    t.equal(verdict, 'invalid', q);
    t.ok(rules.includes(rule), `${rule} in ${rules.join(',')}: ${q}`);
    t.equal(r.status, 'VERIFIED');
    t.equal(r.admission, 'BLOCKED');
    t.equal(f.malicious_classification, false);
    t.equal(f.is_valid, false);
  }
});

t.test('parse failures are BLOCKED with the spec constraint ids', async (t) => {
  const q = await run('SELEC name FROM users');
  t.equal(q.r.status, 'BLOCKED');
  t.equal(q.f.constraint_id, 'sql_verifier.parse_error');
  t.equal(q.r.proof_ref, null);
  t.match(q.f.error, /line 1, column \d+/);
  const s = await verify({ query: 'SELECT 1', schema_ddl: 'CREATE TABLE (' });
  t.equal(s.status, 'BLOCKED');
  t.equal(s.developer_fields.constraint_id, 'sql_verifier.schema_parse_error');
  const w = await verify({ query: 'SELECT 1', schema_ddl: 'CREATE TABLE t (a INTEGER); DROP TABLE t' });
  t.equal(w.developer_fields.constraint_id, 'sql_verifier.schema_parse_error', 'schema_ddl may only create');
  const u = await verify({ query: 'SELECT 1', schema_ddl: SHOP, dialect: 'oracle-ish' });
  t.equal(u.status, 'BLOCKED');
});

t.test('SQLite DDL the node-sql-parser grammar rejects is read through SQLite itself', async (t) => {
  const ddl = 'CREATE TABLE t (a INTEGER NOT NULL ON CONFLICT REPLACE, b TEXT);';
  const ok = await verify({ query: 'SELECT a, b FROM t', schema_ddl: ddl });
  t.equal(ok.admission, 'ADMIT');
  t.equal(ok.developer_fields.schema_source, 'sqlite');
  const bad = await verify({ query: 'SELECT c FROM t', schema_ddl: ddl });
  t.equal((bad.developer_fields as any).issues[0].rule, 'unknown_column');
  const my = await verify({ query: 'SELECT total FROM orders WHERE id = 1', schema_ddl: SHOP, dialect: 'mysql' });
  t.equal(my.admission, 'ADMIT', 'mysql grammar rejects column REFERENCES; SQLite reads it');
});

t.test('complexity limits block with the measured figures', async (t) => {
  const joins = Array.from({ length: 6 }, (_, i) => `JOIN orders o${i} ON o${i}.user_id = u.id`).join(' ');
  const r = await run(`SELECT u.name FROM users u ${joins}`);
  t.equal(r.r.status, 'BLOCKED');
  t.equal(r.f.constraint_id, 'sql_verifier.complexity_limit_exceeded');
  t.equal(r.f.measured.joins, 6);
  t.equal(r.f.limits.joins, 5);
  t.same(r.f.exceeded, ['joins']);
  const deep = await run('SELECT name FROM users WHERE id IN (SELECT user_id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders WHERE id IN (SELECT id FROM orders))))');
  t.equal(deep.f.constraint_id, 'sql_verifier.complexity_limit_exceeded');
  t.equal(deep.f.measured.subquery_depth, 4);
  const big = await run('SELECT 1 ' + ' '.repeat(20_001));
  t.equal(big.f.constraint_id, 'sql_verifier.complexity_limit_exceeded');
});

t.test('sqlite dry run: EXPLAIN QUERY PLAN; engine errors are execution_error', async (t) => {
  const bad = await run('SELECT nosuchfn(name) FROM users');
  t.equal(bad.r.status, 'BLOCKED');
  t.equal(bad.f.constraint_id, 'sql_verifier.execution_error');
  t.match(bad.f.error, /no such function: nosuchfn/);
  const ok = await run('SELECT name FROM users WHERE id = 1');
  t.equal(ok.f.dry_run.performed, true);
  t.ok(ok.f.dry_run.plan.length >= 1);
  // the query is never executed: the schema database is reused per worker, so a CREATE that had
  // run would make the next compile of a query on that table succeed
  const { dryRun } = await import('../../../../plugins/engines/sql/dryrun.js');
  t.equal((await dryRun(SHOP, 'CREATE TABLE zz (a INTEGER)')).ok, true);
  const after = await dryRun(SHOP, 'SELECT a FROM zz');
  t.equal(after.ok, false);
  t.match((after as { message: string }).message, /no such table: zz/);
  const w = await run("INSERT INTO users (id, name) VALUES (1, 'a')", { allow_writes: true });
  t.equal(w.r.admission, 'ADMIT');
  const pg = await run('SELECT name FROM users WHERE id = 1', { dialect: 'postgres' });
  t.equal(pg.f.dry_run.performed, false);
});

t.test('clean verdict: complexity figures and proof_ref bound to the evidence', async (t) => {
  const q = 'SELECT u.name, o.total FROM users u JOIN orders o ON o.user_id = u.id';
  const { r, f } = await run(q);
  t.equal(r.status, 'VERIFIED');
  t.equal(r.admission, 'ADMIT');
  t.equal(f.is_valid, true);
  t.equal(f.malicious_classification, false);
  t.same(f.complexity, { tables: 2, joins: 1, subquery_depth: 0, set_operations: 0 });
  const expected = proofRefOf({
    engine: 'sql',
    engine_version: '1.2.0',
    input: { dialect: 'sqlite', query: q, schema_sha256: sha256Hex(SHOP) },
    parameters: { allow_writes: false },
    result: { is_valid: true, malicious_classification: false, rules: [], complexity: f.complexity },
  });
  t.equal(r.proof_ref, expected);
  const other = await run(q + ' ');
  t.not(other.r.proof_ref, r.proof_ref, 'different input, different proof_ref');
  const writes = await run(q, { allow_writes: true });
  t.not(writes.r.proof_ref, r.proof_ref, 'allow_writes is bound');
});

t.test('the schema is never executed as a query (issue 12 item 6)', async (t) => {
  const refused = [
    // the probe: rejected by node-sql-parser, so SQLite used to run it (a million rows, 1.5 GB with zeroblob)
    'CREATE TABLE t AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x, zeroblob(1000) AS b FROM c;',
    'CREATE TABLE t AS SELECT 1 AS a;',
    'CREATE TABLE u (id INTEGER); CREATE TABLE t AS SELECT * FROM u;',
    'CREATE TABLE u (id INTEGER); CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM u; END;',
    "WITH x AS (SELECT 1) SELECT * FROM x;",
    'CREATE VIRTUAL TABLE f USING fts5(body);',
    'CREATE TABLE t (a INTEGER) ; INSERT INTO t VALUES (1);',
  ];
  for (const ddl of refused) {
    const r = await verify({ query: 'SELECT 1', schema_ddl: ddl });
    t.equal(r.status, 'BLOCKED', ddl.slice(0, 60));
    t.equal(r.developer_fields.constraint_id, 'sql_verifier.schema_parse_error', ddl.slice(0, 60));
  }
  // what a schema is: tables with columns (also what only SQLite reads), indexes, views
  const accepted = [
    'CREATE TABLE t (a INTEGER PRIMARY KEY NOT NULL ON CONFLICT REPLACE, b TEXT) WITHOUT ROWID;',
    'CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT GENERATED ALWAYS AS (upper(a)) VIRTUAL);',
    'CREATE TABLE t (a INTEGER, b TEXT); CREATE UNIQUE INDEX ix ON t (a) WHERE b IS NOT NULL; CREATE VIEW v AS SELECT a FROM t;',
    'CREATE TABLE t (a TIMESTAMP WITH TIME ZONE, b INTEGER REFERENCES t(b) ON DELETE CASCADE);',
  ];
  for (const ddl of accepted) {
    const r = await verify({ query: 'SELECT a FROM t', schema_ddl: ddl, dialect: ddl.includes('TIME ZONE') ? 'postgres' : 'sqlite' });
    t.equal(r.status, 'VERIFIED', ddl.slice(0, 60));
    t.equal(r.admission, 'ADMIT', ddl.slice(0, 60));
  }
  // a view's body is stored, not run: a view over a recursive CTE compiles and plans instantly
  const view = await verify({
    query: 'SELECT x FROM v',
    schema_ddl: 'CREATE TABLE t (a INTEGER); CREATE VIEW v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;',
  });
  t.equal(view.admission, 'ADMIT');
});

t.test('a SQLite database built from schema_ddl is capped and never kept with rows', async (t) => {
  const { dryRun } = await import('../../../../plugins/engines/sql/dryrun.js');
  // dryRun is below the gate (the engine only calls it for gated DDL); a DDL that fills a table is refused, not cached
  const filled = await dryRun('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);', 'SELECT a FROM t');
  t.equal(filled.ok, false);
  t.match((filled as { message: string }).message, /rows/);
  const huge = await dryRun("CREATE TABLE t (b BLOB); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) INSERT INTO t SELECT zeroblob(10000) FROM c;", 'SELECT b FROM t');
  t.equal(huge.ok, false, 'the page cap stops a statement that fills the database');
  t.match((huge as { message: string }).message, /full|rows/);
});
