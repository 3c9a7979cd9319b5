import t from 'tap';
import { mayHoldComment, tokenize } from '../../../../plugins/engines/sql/tokens.js';
import { resolveDialect } from '../../../../plugins/engines/sql/dialects.js';
import { run } from '../fixtures/helpers.js';

t.test('mayHoldComment is false only when the lexer finds no comment', async (t) => {
  const pieces = ['a', ' ', '-', '#', '/', '*', "'", '"', '`', '[', ']', '$$', '\n', ';', '1', 'E'];
  // every sequence of up to 3 pieces, in each lexical family of dialects
  let level = [''];
  const strings: string[] = [];
  for (let n = 0; n < 3; n++) {
    level = level.flatMap((s) => pieces.map((p) => s + p));
    strings.push(...level);
  }
  for (const name of ['sqlite', 'mysql', 'postgresql', 'transactsql']) {
    const d = resolveDialect(name)!;
    let checked = 0;
    for (const s of new Set(strings)) {
      const hasComment = tokenize(s, d).some((tok) => tok.kind === 'comment');
      if (hasComment) t.ok(mayHoldComment(s, d), `${name}: ${JSON.stringify(s)}`);
      checked++;
    }
    t.ok(checked > 1000, `${name}: ${checked} strings`);
  }
  const lite = resolveDialect('sqlite')!;
  const my = resolveDialect('mysql')!;
  t.equal(mayHoldComment('SELECT 1', lite), false);
  t.equal(mayHoldComment("SELECT '#'", lite), false, '# starts no comment in sqlite');
  t.equal(mayHoldComment("SELECT '#'", my), true, 'a # may start one in mysql (the lexer decides)');
  t.equal(mayHoldComment('SELECT 1 -- note', lite), true);
});

t.test('comment rules still decide on queries with comments', async (t) => {
  const trunc = await run("SELECT * FROM users WHERE name = 'admin'--' AND password_hash = 'x'");
  t.equal(trunc.verdict, 'malicious');
  t.ok(trunc.rules.includes('comment_truncation'), trunc.rules.join(','));
  const note = await run('SELECT name FROM users -- list users');
  t.equal(note.verdict, 'clean');
  const plain = await run("SELECT name FROM users WHERE name = 'a-b/c*d'");
  t.equal(plain.verdict, 'clean');
});
