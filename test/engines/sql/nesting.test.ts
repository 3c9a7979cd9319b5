import t from 'tap';
import sql from '../../../plugins/engines/sql/index.js';
import { verify } from '../../../plugins/engines/sql/engine.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * Long and deep queries. Nesting deeper than a recursive reader can follow — node-sql-parser's grammar, or the engine's own
 * rule and schema walks over the tree it built — is a cost limit: BLOCKED
 * `complexity_limit_exceeded` with a plain reason. It was a `parse_error` whose message was V8's
 * "Maximum call stack size exceeded", or, when the parser coped and a walk did not, an
 * `execution_error` "verification failed inside the engine".
 */
const DDL = 'CREATE TABLE t (id INTEGER, name TEXT)';
const parens = (n: number) => `SELECT name FROM t WHERE ${'('.repeat(n)}id = 1${')'.repeat(n)}`;

t.test('in process: the parser runs out of stack', async (t) => {
  const r = await verify({ query: parens(5000), schema_ddl: DDL, dialect: 'sqlite' });
  t.equal(r.status, 'BLOCKED');
  t.equal(r.developer_fields.constraint_id, 'sql_verifier.complexity_limit_exceeded');
  t.same(r.developer_fields.exceeded, ['nesting_depth']);
  t.notMatch(r.agent_message, /call stack/i, 'no raw exception text');
});

t.test('in process: a schema nested too deep to read', async (t) => {
  const r = await verify({ query: 'SELECT id FROM t', schema_ddl: `CREATE TABLE t (id INT CHECK (id > ${'('.repeat(20000)}1${')'.repeat(20000)}))`, dialect: 'postgresql' });
  t.equal(r.status, 'BLOCKED');
  t.equal(r.developer_fields.constraint_id, 'sql_verifier.schema_parse_error');
  t.notMatch(r.agent_message, /call stack/i, 'no raw exception text');
});

t.test('through the worker pool', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), sql] });
  t.teardown(() => s.close());
  const post = (query: string, dialect: string) => s.request('POST', '/verify/sql', { apiKey: TEST_API_KEY, body: { query, schema_ddl: DDL, dialect } });
  // mysql's grammar reads 19,960 unary minus signs; the walks over the tree it returns could not
  const walks = await post(`SELECT name FROM t WHERE id = ${'-'.repeat(19960)}1`, 'mysql');
  t.equal(walks.status, 200);
  t.match(walks.body, { status: 'BLOCKED', admission: 'BLOCKED', proof_ref: null, developer_fields: { constraint_id: 'sql_verifier.complexity_limit_exceeded', exceeded: ['nesting_depth'] } }, 'a walk out of stack');
  for (const dialect of ['sqlite', 'postgresql', 'mysql']) {
    const deep = await post(parens(9000), dialect);
    t.match(deep.body, { status: 'BLOCKED', developer_fields: { constraint_id: 'sql_verifier.complexity_limit_exceeded' } }, `${dialect}: the parser out of stack`);
    t.notMatch(deep.body.agent_message, /call stack/i);
  }
  // every operand of a long OR chain holds the rest of it: folding each was quadratic, and the
  // chain ran into the worker deadline (BLOCKED by timeout) instead of being proven a tautology
  for (const [dialect, or] of [['mysql', '||1'], ['mariadb', '||1'], ['snowflake', ' OR 1']]) {
    const chain = await post(`SELECT name FROM t WHERE id = 1${or.repeat(Math.floor(19900 / or.length))}`, dialect);
    t.match(chain.body, { status: 'VERIFIED', admission: 'BLOCKED', developer_fields: { malicious_classification: true } }, `${dialect}: a long OR chain is proven`);
    t.ok(chain.body.developer_fields.issues.some((i: { rule: string }) => i.rule === 'tautology'), `${dialect}: tautology`);
  }
  const fine = await post('SELECT name FROM t WHERE ((id = 1))', 'sqlite');
  t.equal(fine.body.admission, 'ADMIT', 'ordinary nesting is still read');
});
