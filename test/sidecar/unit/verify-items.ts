import t from 'tap';
import { judge, lineColumnAt, statementLine, type Item } from '../../../sidecar/verify/items.js';

t.test('statementLine: the line of the statement\'s first token', async (t) => {
  const sql = 'SELECT 1;\n\n\nSELECT 2; -- two\n/* three\n */ SELECT 3;\n-- four\n\n  SELECT 4';
  t.same([0, 1, 2, 3].map((n) => statementLine(sql, n)), [1, 4, 6, 9]);
  t.equal(statementLine('\n\n-- why\nSELECT 1', 0), 4, 'leading blank lines and comments are skipped');
  t.equal(statementLine("SELECT ';';\nSELECT 2", 1), 2, 'a ; in a string ends nothing');
  t.equal(statementLine('SELECT 1;\n/* never closed', 1), 2, 'an unclosed comment stops the walk where it starts');
});

t.test('SQL findings point at the statement, or at the token an issue names by offset', async (t) => {
  const query = 'SELECT id FROM users;\n\n\nSELECT id\n  FROM users WHERE id = 1 /*! OR 1=1 */';
  const item: Item = { file: 'q.sql', line: 1, kind: 'sql', body: { query } };
  const o = judge(item, {
    status: 'VERIFIED',
    admission: 'BLOCK',
    malicious_classification: 'sql_injection',
    developer_fields: {
      issues: [
        { rule: 'stacked_statements', message: '2 statements where one is allowed', location: { statement: 1, statements: 2 } },
        { rule: 'executable_comment', message: 'MySQL executable comment', location: { statement: 0, offset: query.indexOf('/*!') } },
      ],
    },
  });
  t.equal(o.admitted, false);
  t.same(o.findings.map((f) => [f.ruleId, f.line, f.column]), [
    ['stacked_statements', 4, 1],
    ['executable_comment', 5, 27],
  ]);
  t.same(lineColumnAt(query, 0), { line: 1, column: 1 });
});
