import t, { type Test } from 'tap';
import sql from '../../../plugins/engines/sql/index.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { run, SHOP } from './fixtures/helpers.js';

/**
 * Probes that SQLite reads one way and the parser another. Each query here was admitted as clean
 * (VERIFIED, is_valid true, ADMIT) before the fix although SQLite reads the credential or folds the
 * OR branch to true.
 */

async function expectRule(t: Test, q: string, rule: string, dialect?: string) {
  const { verdict, rules, r } = await run(q, dialect ? { dialect } : {});
  t.equal(verdict, 'malicious', `malicious: ${q}`);
  t.ok(rules.includes(rule), `${rule} in [${rules.join(',')}] for: ${q}`);
  t.equal(r.admission, 'BLOCKED');
}

async function expectClean(t: Test, q: string, dialect?: string) {
  const { verdict, rules, r } = await run(q, dialect ? { dialect } : {});
  t.equal(verdict, 'clean', `clean: ${q} (${rules.join(',')})`);
  t.equal(r.admission, 'ADMIT');
}

t.test('a double-quoted credential column is a credential read in SQLite', async (t) => {
  // SQLite resolves "x" as the column x when a source in scope has one; the parser calls it a string
  await expectRule(t, 'SELECT "password_hash" FROM users', 'credential_read');
  await expectRule(t, 'SELECT "PASSWORD_HASH" FROM users', 'credential_read');
  await expectRule(t, "SELECT name || ':' || \"password_hash\" FROM users", 'credential_read');
  await expectRule(t, 'SELECT name FROM users UNION SELECT "password_hash" FROM users', 'credential_read');
  await expectRule(t, 'SELECT u.name FROM users u WHERE u.id IN (SELECT "password_hash" FROM users)', 'credential_read');
  // no column of that name in scope: SQLite reads a string literal, which reads no credential
  await expectClean(t, 'SELECT "password_hash" FROM products');
  await expectClean(t, 'SELECT "name" FROM users');
  // comparing a credential is a login check, not a read, quoted or not
  await expectClean(t, 'SELECT name FROM users WHERE "password_hash" = \'x\'');
  // MySQL's default sql_mode reads "…" as a string: no column is projected there
  await expectClean(t, 'SELECT "password_hash" FROM users', 'mysql');
});

t.test('OR branches SQLite folds to true are tautologies', async (t) => {
  for (const q of [
    // exponent forms and literals past 2^53 arrive as `bigint` nodes
    'SELECT name FROM users WHERE id = 5 OR 1e0 = 1',
    'SELECT name FROM users WHERE id = 5 OR 1e3',
    'SELECT name FROM users WHERE id = 5 OR 9223372036854775808 > 0',
    'SELECT name FROM users WHERE id = 5 OR ~0',
    'SELECT name FROM users WHERE id = 5 OR ~1.5',
    "SELECT name FROM users WHERE id = 5 OR 'a' GLOB '*'",
    "SELECT name FROM users WHERE id = 5 OR 5 LIKE '%'",
    'SELECT name FROM users WHERE id = 5 OR CASE WHEN 1 THEN 1 END',
    'SELECT name FROM users WHERE id = 5 OR CASE 2 WHEN 1 THEN 0 ELSE 1 END',
    "SELECT name FROM users WHERE id = 5 OR CASE 'a' WHEN 'a' THEN 'yes' || 1 END = 'yes1'",
  ]) await expectRule(t, q, 'tautology');
});

t.test('the new folds do not call a data-dependent or false branch true', async (t) => {
  for (const q of [
    'SELECT name FROM users WHERE id = 5 OR 1e0 = 2',
    'SELECT name FROM users WHERE id = 5 OR ~-1',
    "SELECT name FROM users WHERE id = 5 OR 'a' GLOB 'b*'",
    "SELECT name FROM users WHERE id = 5 OR NULL LIKE '%'",
    'SELECT name FROM users WHERE id = 5 OR CASE WHEN 0 THEN 1 END',
    'SELECT name FROM users WHERE id = 5 OR CASE WHEN id = 3 THEN 1 ELSE 1 END',
    'SELECT name FROM users WHERE id = 5 OR CASE 1 WHEN 2 THEN 1 ELSE 0 END',
    // within 64 bits SQLite compares these exactly; doubles would call them equal
    'SELECT name FROM users WHERE id = 5 OR 9007199254740993 = 9007199254740992',
    'SELECT name FROM users WHERE id = 5 OR 9223372036854775807 <= 9223372036854775806',
  ]) await expectClean(t, q);
});

t.test('POST /verify/sql blocks a double-quoted credential read and a CASE tautology', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), sql] });
  t.teardown(() => s.close());
  for (const [query, rule] of [
    ['SELECT "password_hash" FROM users', 'credential_read'],
    ['SELECT name FROM users WHERE id = 5 OR CASE WHEN 1 THEN 1 END', 'tautology'],
  ]) {
    const res = await s.request('POST', '/v1/verify/sql', { apiKey: TEST_API_KEY, body: { query, schema_ddl: SHOP } });
    t.equal(res.status, 200);
    t.equal(res.body.status, 'VERIFIED');
    t.equal(res.body.admission, 'BLOCKED', query);
    t.equal(res.body.developer_fields.malicious_classification, true);
    t.same([...new Set(res.body.developer_fields.issues.map((i: { rule: string }) => i.rule))], [rule]);
  }
});
