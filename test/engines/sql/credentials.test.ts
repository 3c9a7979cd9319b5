import t, { type Test } from 'tap';
import sql from '../../../plugins/engines/sql/index.js';
import { isCredentialColumn } from '../../../plugins/engines/sql/catalog.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';
import { run } from './fixtures/helpers.js';

/**
 * The credential rule on names as a schema spells them. Each query expected malicious here was
 * admitted (VERIFIED, ADMIT) before its fix: the word boundary of `passwordHash` was lost when the
 * name was lower-cased.
 */

const CAMEL =
  'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, passwordHash TEXT, userPassword TEXT, apiKey TEXT, ' +
  'PrivateKey TEXT, accessToken TEXT, PassHash TEXT, secretary TEXT, tokenizer TEXT, pwdate TEXT, XMLHttpRequest TEXT, salary REAL);\n' +
  'CREATE TABLE apps (id INTEGER PRIMARY KEY, APIKey TEXT, label TEXT);\n' +
  'CREATE VIEW everyone AS SELECT * FROM users;';

const DIALECTS = ['sqlite', 'postgresql', 'mysql'];

async function expectRead(t: Test, schema_ddl: string, q: string, dialect: string) {
  const { verdict, rules, r } = await run(q, { schema_ddl, dialect });
  t.equal(verdict, 'malicious', `malicious (${dialect}): ${q}`);
  t.ok(rules.includes('credential_read'), `credential_read in [${rules.join(',')}] (${dialect}): ${q}`);
  t.equal(r.admission, 'BLOCKED');
}

async function expectClean(t: Test, schema_ddl: string, q: string, dialect: string) {
  const { verdict, rules, r } = await run(q, { schema_ddl, dialect });
  t.equal(verdict, 'clean', `clean (${dialect}): ${q} (${rules.join(',')})`);
  t.equal(r.admission, 'ADMIT');
}

t.test('credential names split on camelCase, acronym runs and digits, never on substrings', async (t) => {
  for (const n of ['passwordHash', 'userPassword', 'apiKey', 'APIKey', 'PrivateKey', 'accessToken', 'PassHash', 'oauthToken',
    'AccessKeyID', 'token2', 'PassWord', 'password_hash', 'PASSWORD_HASH', 'api_key', 'x_api_key_y', 'APIKEY']) {
    t.equal(isCredentialColumn(n), true, n);
  }
  for (const n of ['secretary', 'tokenizer', 'pwdate', 'pwDate', 'XMLHttpRequest', 'salary', 'xapi_key', 'api_keyring', 'name', 'created_at', 'passwordhash']) {
    t.equal(isCredentialColumn(n), false, n);
  }
});

t.test('a camelCase credential column is read whatever case the query spells it in', async (t) => {
  for (const dialect of DIALECTS) {
    for (const q of [
      'SELECT passwordHash FROM users',
      'SELECT passwordhash FROM users',
      'SELECT PASSWORDHASH FROM users',
      'SELECT u.passwordhash FROM users u',
      'SELECT userPassword FROM users',
      'SELECT apiKey FROM users',
      'SELECT PrivateKey FROM users',
      'SELECT accesstoken FROM users',
      'SELECT PassHash FROM users',
      'SELECT APIKey FROM apps',
      'SELECT apikey FROM apps',
      "SELECT name || ':' || passhash FROM users",
      'SELECT (SELECT passwordhash FROM users u2 WHERE u2.id = users.id) AS x FROM users',
      'SELECT * FROM users',
      'SELECT u.* FROM users u',
      'SELECT * FROM apps',
      'SELECT k.* FROM apps k JOIN users u ON u.id = k.id',
      'SELECT * FROM everyone',
      'SELECT accesstoken FROM everyone',
    ]) await expectRead(t, CAMEL, q, dialect);
  }
  // SQLite resolves a double-quoted word naming a column as that column
  await expectRead(t, CAMEL, 'SELECT "passwordhash" FROM users', 'sqlite');
});

t.test('words inside longer words are not credentials, and comparing a credential is not reading it', async (t) => {
  for (const dialect of DIALECTS) {
    await expectClean(t, CAMEL, 'SELECT id, name, secretary, tokenizer, pwdate, XMLHttpRequest, salary FROM users', dialect);
    await expectClean(t, CAMEL, 'SELECT id, label FROM apps', dialect);
    await expectClean(t, CAMEL, "SELECT id FROM users WHERE passwordhash = 'x' AND apikey IS NOT NULL", dialect);
    await expectClean(t, CAMEL, 'SELECT name FROM users WHERE EXISTS (SELECT * FROM apps k WHERE k.id = users.id)', dialect);
  }
});

t.test('a RETURNING list that hands back a credential is a credential read, with allow_writes too', async (t) => {
  for (const dialect of ['sqlite', 'postgresql']) {
    for (const q of [
      'DELETE FROM users WHERE id = 1 RETURNING passwordHash',
      "UPDATE users SET name = 'x' WHERE id = 1 RETURNING *",
      "UPDATE users SET name = 'x' WHERE id = 1 RETURNING id, upper(apikey) AS k",
      "INSERT INTO apps (id, APIKey, label) VALUES (1, 'k', 'l') RETURNING APIKey",
    ]) {
      const { verdict, rules, r } = await run(q, { schema_ddl: CAMEL, dialect, allow_writes: true });
      t.equal(verdict, 'malicious', `malicious (${dialect}): ${q}`);
      t.same([...new Set(rules)], ['credential_read'], `(${dialect}) ${q}`);
      t.equal(r.admission, 'BLOCKED');
    }
    const ok = await run("UPDATE users SET name = 'x' WHERE id = 1 RETURNING id, name", { schema_ddl: CAMEL, dialect, allow_writes: true });
    t.equal(ok.r.admission, 'ADMIT', `${dialect}: ${ok.rules.join(',')}`);
  }
});

t.test('POST /verify/sql refuses a camelCase credential read and admits its look-alikes', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), sql] });
  t.teardown(() => s.close());
  for (const [query, admission] of [
    ['SELECT passwordhash FROM users', 'BLOCKED'],
    ['SELECT id, APIKey FROM apps', 'BLOCKED'],
    ['SELECT * FROM everyone', 'BLOCKED'],
    ['SELECT secretary, tokenizer, pwdate FROM users', 'ADMIT'],
    ['DELETE FROM users WHERE id = 1 RETURNING passwordHash', 'BLOCKED'],
  ]) {
    const res = await s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query, schema_ddl: CAMEL, allow_writes: true } });
    t.equal(res.status, 200);
    t.equal(res.body.status, 'VERIFIED', query);
    t.equal(res.body.admission, admission, query);
    const rules = [...new Set(res.body.developer_fields.issues.map((i: { rule: string }) => i.rule))];
    t.same(rules, admission === 'BLOCKED' ? ['credential_read'] : [], query);
  }
});
