import t from 'tap';
import { run } from '../fixtures/helpers.js';

/**
 * A qualified table name resolves in the namespace it names, not in the one schema_ddl describes.
 * Each query below that is not clean was admitted (VERIFIED, ADMIT) as a read of the schema's table.
 */

t.test("Snowflake's account database is a system catalog, whatever the last part is called", async (t) => {
  for (const q of ['SELECT name, email FROM snowflake.account_usage.users', 'SELECT name FROM account_usage.users']) {
    const { verdict, rules, r } = await run(q, { dialect: 'snowflake' });
    t.equal(verdict, 'malicious', q);
    t.ok(rules.includes('system_catalog'), rules.join(','));
    t.equal(r.admission, 'BLOCKED');
  }
});

t.test('another database or schema is not the one schema_ddl describes', async (t) => {
  for (const [q, dialect] of [
    ['SELECT name, email FROM other.users', 'postgresql'],
    ['SELECT name, email FROM otherdb.users', 'mysql'],
    ['SELECT name, email FROM otherdb.dbo.users', 'transactsql'],
    ['SELECT name FROM users UNION SELECT email FROM otherdb.users', 'mysql'],
  ]) {
    const { r } = await run(q, { dialect });
    t.not(r.admission, 'ADMIT', `${dialect}: ${q}`);
  }
  // the default namespaces are the schema's own
  for (const [q, dialect] of [
    ['SELECT name FROM public.users', 'postgresql'],
    ['SELECT name FROM main.users', 'sqlite'],
    ['SELECT name FROM dbo.users', 'transactsql'],
    ['SELECT name FROM [dbo].[users]', 'transactsql'],
  ]) {
    const { verdict, r } = await run(q, { dialect });
    t.equal(verdict, 'clean', `${dialect}: ${q}`);
    t.equal(r.admission, 'ADMIT');
  }
});
