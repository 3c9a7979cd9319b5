import t from 'tap';
import code, { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzePython } from '../../../plugins/engines/code/analyze.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * Fail closed (issue 40): a sink the flow analysis cannot decide — data from a callee outside the
 * file, a shared object, a parameter other code may pass — is not admitted, whatever the class, and
 * the finding says which value and why; the same sink given constants is admitted. The programs
 * below are written for these tests.
 */
const undecided = (fs: Finding[], lang: string, cat: string): Finding | undefined => fs.find((f) => f.rule_id === `${lang}.flow.${cat}.undecided`);
const blocks = (fs: Finding[]): boolean => fs.some(isBlocking);

const PY_HEAD = 'import flask, sqlite3\nfrom flask import Flask, request\nfrom store import pick\napp = Flask(__name__)\n';
const pyRoute = (body: string): string => `${PY_HEAD}@app.route('/q')\ndef handler():\n${body.replace(/^/gm, '    ')}\n`;
const PY_CASES: Array<[string, number, string, string]> = [
  ['sqli', 89, "db = sqlite3.connect('a.db')\nq = pick()\nreturn str(db.execute(q).fetchall())", "db = sqlite3.connect('a.db')\nq = 'SELECT 1'\nreturn str(db.execute(q).fetchall())"],
  ['pathtraver', 22, "open('/srv/' + pick()).close()\nreturn 'ok'", "open('/srv/index.txt').close()\nreturn 'ok'"],
  ['redirect', 601, 'return flask.redirect(pick())', "return flask.redirect('/home')"],
];

t.test('Python: an undecided SQL/path/redirect sink is not admitted and says why; constants are', async (t) => {
  for (const [cat, cwe, open, closed] of PY_CASES) {
    const a = await analyzePython(pyRoute(open));
    const f = undecided(a.findings, 'python', cat);
    t.ok(f && isBlocking(f), `${cat}: undecided finding blocks`);
    t.equal(f?.cwe, cwe, `${cat}: the class's CWE`);
    t.match(f?.message, /flow undecided: the result of store\.pick\(\) .* \(line \d+\) reaches .* not admitted/, `${cat}: names the value and why`);
    t.notOk(blocks((await analyzePython(pyRoute(closed))).findings), `${cat}: constant argument admitted`);
  }
  const clean = await analyzePython(pyRoute("import os\nopen(os.path.basename(pick())).close()\nreturn 'ok'"));
  t.notOk(undecided(clean.findings, 'python', 'pathtraver'), 'a sanitised value of unknown origin decides the path sink');
});

t.test('Python aliasing: a list or dict shared with other code has undecided members', async (t) => {
  const handed = await analyzePython("import os\nfrom jobs import tweak\nopts = {'cmd': 'ls'}\ntweak(opts)\nos.system(opts['cmd'])\n");
  const f = handed.findings.find((x) => x.rule_id === 'python.process.shell_injection');
  t.ok(f && isBlocking(f), 'handed to a callee outside the file: the shell call stays blocking');
  t.match(f?.message, /the members of opts \(handed to tweak\(\)/);
  const aliased = await analyzePython("import os\nopts = ['ls']\nother = opts\nos.system(opts[0])\n");
  const g = aliased.findings.find((x) => x.rule_id === 'python.process.shell_injection');
  t.ok(g && isBlocking(g), 'bound to a second name: not proven constant');
  t.match(g?.message, /the members of opts \(shared with other/);
  const alone = await analyzePython("import os\nopts = {'cmd': 'ls'}\nprint(len(opts))\nos.system(opts['cmd'])\n");
  t.notOk(blocks(alone.findings), 'read only by calls that keep nothing: the constant is still known');
});

t.test('Python: a function called here that other code may call too is an entry point', async (t) => {
  const body = "import os\ndef run(cmd):\n    os.system('echo ' + cmd)\nrun('hello')\n";
  t.notOk(blocks((await analyzePython(body)).findings), 'only ever called here with a constant: admitted');
  for (const [how, extra] of [['stored in a table', "HANDLERS = {'run': run}\n"], ['listed in __all__', "__all__ = ['run']\n"], ['handed to a call', 'import atexit\natexit.register(run)\n']]) {
    const a = await analyzePython(body + extra);
    const f = a.findings.find((x) => x.rule_id === 'python.flow.cmdi');
    t.ok(f && isBlocking(f), `${how}: its parameter reaches the shell`);
    t.match(f?.message, /parameter cmd/, `${how}: the flow names the parameter`);
  }
});

const JS_HEAD = "const express = require('express');\nconst fs = require('fs');\nconst mysql = require('mysql');\nconst { pick } = require('./store');\nconst app = express();\nconst db = mysql.createConnection({});\n";
const JS_CASES: Array<[string, number, string, string]> = [
  ['sqli', 89, "db.query('SELECT * FROM t WHERE k = ' + pick(), () => {}); res.end();", "db.query('SELECT * FROM t', () => {}); res.end();"],
  ['pathtraver', 22, "res.end(String(fs.readFileSync('/srv/' + pick()).length));", "res.end(String(fs.readFileSync('/srv/index.txt').length));"],
  ['xss', 79, "res.send('<p>' + pick() + '</p>');", "res.send('<p>hello</p>');"],
  ['redirect', 601, 'res.redirect(pick());', "res.redirect('/home');"],
];

t.test('JavaScript: an undecided SQL/path/HTML/redirect sink is not admitted and says why; constants are', async (t) => {
  for (const [cat, cwe, open, closed] of JS_CASES) {
    const a = analyzeJavaScript(`${JS_HEAD}app.get('/q', (req, res) => { ${open} });\n`);
    const f = undecided(a.findings, 'javascript', cat);
    t.ok(f && isBlocking(f), `${cat}: undecided finding blocks`);
    t.equal(f?.cwe, cwe, `${cat}: the class's CWE`);
    t.match(f?.message, /flow undecided: the result of \.\/store\.pick\(\) \(line \d+\) reaches .* not admitted/, `${cat}: names the value and why`);
    t.notOk(blocks(analyzeJavaScript(`${JS_HEAD}app.get('/q', (req, res) => { ${closed} });\n`).findings), `${cat}: constant argument admitted`);
  }
});

t.test('POST /verify/code: an undecided path sink is BLOCKED with the reason; the constant one ADMIT', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 60_000 } } });
  t.teardown(() => s.close());
  const post = (src: string) => s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language: 'python', code: src } });
  const open = await post(pyRoute("open('/srv/' + pick()).close()\nreturn 'ok'"));
  t.equal(open.status, 200);
  t.equal(open.body.admission, 'BLOCKED');
  const f = (open.body.developer_fields.vulnerabilities as Finding[]).find((x) => x.rule_id === 'python.flow.pathtraver.undecided');
  t.equal(f?.cwe, 22);
  t.match(f?.message, /store\.pick\(\)/, 'the reason crosses the wire');
  const closed = await post(pyRoute("open('/srv/index.txt').close()\nreturn 'ok'"));
  t.equal(closed.status, 200);
  t.equal(closed.body.admission, 'ADMIT');
});
