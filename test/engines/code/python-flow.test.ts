import t from 'tap';
import code, { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * The Python source-to-sink flow analysis (issue 40): a flow from a request to a sink is a finding
 * with its path (source line → steps → sink line) and CWE; a sink whose every dangerous argument is
 * proven constant or sanitised loses its presence finding; data of unknown origin leaves the sink
 * undecided and the presence finding stays, saying why. The handlers below are written for these
 * tests.
 */
const HEAD = 'from flask import Flask, request\nimport sqlite3, shlex, subprocess, os\napp = Flask(__name__)\n';
const route = (body: string): string => `${HEAD}@app.route('/q')\ndef handler():\n${body.replace(/^/gm, '    ')}\n`;
const LINE0 = 6; // first line of the handler body

const blocking = (fs: Finding[]): Finding[] => fs.filter(isBlocking);

const TAINTED = route(
  [
    "name = request.args.get('name', '')",
    "cmd = f'grep -n {name} /var/log/app.log'",
    'out = subprocess.run(cmd, shell=True, capture_output=True)',
    'return out.stdout',
  ].join('\n'),
);
const SANITISED = TAINTED.replace("{name}", '{shlex.quote(name)}');
const SQL = (assign: string): string =>
  route(
    [
      "db = sqlite3.connect('app.db')",
      "key = request.form['key']",
      assign,
      "rows = db.cursor().execute(\"SELECT v FROM kv WHERE k = '\" + key + \"'\").fetchall()",
      'return str(len(rows))',
    ].join('\n'),
  );
const DEAD_BRANCH = SQL("limit = 90\nif 3 * 70 - limit > 100:\n    key = 'default'");
const LIVE_BRANCH = SQL("limit = 90\nif 3 * 70 - limit > 200:\n    key = 'default'");
const OVERWRITTEN = SQL("key = 'fixed'");
const CONVERTED = SQL('key = int(key)');
const UNKNOWN_CALLEE = SQL('from settings_store import lookup\nkey = lookup()');

t.test('a request value reaching a shell is a flow finding with its path and CWE', async (t) => {
  const a = await analyzePython(TAINTED);
  const f = a.findings.find((x) => x.rule_id === 'python.flow.cmdi');
  t.ok(f, 'flow finding');
  t.equal(f?.cwe, 78);
  t.same(f?.path, [LINE0, LINE0 + 1, LINE0 + 2], 'source line → step → sink line');
  t.equal(f?.line, LINE0 + 2);
  t.match(f?.message, /request\.args/);
  t.ok(blocking(a.findings).length > 0);
});

t.test('proven harmless: sanitised, dead branch folded, overwritten, converted', async (t) => {
  const sanitised = await analyzePython(SANITISED);
  t.notOk(sanitised.findings.some((f) => f.rule_id === 'python.flow.cmdi'), 'shlex.quote: no flow');
  const cleared = sanitised.findings.find((f) => f.rule_id === 'python.process.shell_injection');
  t.equal(cleared?.severity, 'LOW', 'shlex.quote: the presence finding stays, as LOW (admitted), for policies that refuse the call itself');
  t.match(cleared?.message, /proven constant or sanitised/);
  for (const [name, src] of [['dead branch', DEAD_BRANCH], ['overwrite', OVERWRITTEN], ['int()', CONVERTED]] as const) {
    t.same(blocking((await analyzePython(src)).findings), [], `${name}: nothing blocks`);
  }
  const live = await analyzePython(LIVE_BRANCH);
  const f = live.findings.find((x) => x.rule_id === 'python.flow.sqli');
  t.ok(f, 'the same code with the branch not taken is a flow');
  t.equal(f?.cwe, 89);
  t.equal(f?.path?.[0], LINE0 + 1, 'the path starts at the request read');
});

t.test('unknown origin is undecided: the presence finding stays and says why', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['unbound name', 'import os\nos.system(cmd)\n', 'python.process.shell_injection'],
    ['callee outside the file', UNKNOWN_CALLEE, 'python.sql_injection.string_built'],
    ['imported value', 'import os\nfrom conf import COMMAND\nos.system(COMMAND + " -v")\n', 'python.process.shell_injection'],
    ['method outside the file', 'import os\nimport store\nos.system(store.Client().next_job())\n', 'python.process.shell_injection'],
    ['dynamic attribute', 'import os\nfrom jobs import q\nos.system(getattr(q, name))\n', 'python.process.shell_injection'],
    ['splat argument', 'import os\nfrom jobs import argv\nos.system(*argv)\n', 'python.process.shell_injection'],
  ];
  for (const [name, src, rule] of cases) {
    const a = await analyzePython(src);
    const f = a.findings.find((x) => x.rule_id === rule);
    t.ok(f && isBlocking(f), `${name}: ${rule} stays blocking`);
    t.match(f?.message, /flow undecided: .+ not proven safe/, `${name}: says why`);
    t.notOk(a.findings.some((x) => x.rule_id.startsWith('python.flow.')), `${name}: no flow is claimed either`);
  }
});

t.test('POST /verify/code: flows blocked with their path, proven-harmless code admitted, unknown origin not admitted', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 60_000 } } });
  t.teardown(() => s.close());
  const post = (src: string) => s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language: 'python', code: src } });

  const bad = await post(TAINTED);
  t.equal(bad.status, 200);
  t.equal(bad.body.admission, 'BLOCKED');
  const v = (bad.body.developer_fields.vulnerabilities as Finding[]).find((x) => x.rule_id === 'python.flow.cmdi');
  t.same(v?.path, [LINE0, LINE0 + 1, LINE0 + 2], 'the path crosses the wire');
  t.equal(v?.cwe, 78);

  for (const src of [DEAD_BRANCH, OVERWRITTEN, CONVERTED]) {
    const ok = await post(src);
    t.equal(ok.body.admission, 'ADMIT');
  }
  const undecided = await post(UNKNOWN_CALLEE);
  t.equal(undecided.body.admission, 'BLOCKED');
  const why = (undecided.body.developer_fields.vulnerabilities as Finding[]).find((x) => x.rule_id === 'python.sql_injection.string_built');
  t.match(why?.message, /flow undecided: the result of settings_store\.lookup\(\)/);
});

t.test('guards: a branch that returns or raises leaves the other side clean for what it ruled out', async (t) => {
  const cases: Array<[name: string, cat: string, guarded: string, open: string]> = [
    [
      'dot-dot check',
      'pathtraver',
      "p = request.args['f']\nif '..' in p:\n    return 'no'\nreturn open(os.path.join('/srv/files', p)).read()",
      "p = request.args['f']\nreturn open(os.path.join('/srv/files', p)).read()",
    ],
    [
      'prefix check after realpath',
      'pathtraver',
      "p = os.path.realpath(os.path.join('/srv/files', request.args['f']))\nif not p.startswith('/srv/files/'):\n    raise ValueError(p)\nreturn open(p).read()",
      "p = os.path.realpath(os.path.join('/srv/files', request.args['f']))\nreturn open(p).read()",
    ],
    [
      'quoted literal with no quote inside',
      'codeinj',
      "s = request.form['expr']\nif not s.startswith('\"') or not s.endswith('\"') or '\"' in s[1:-1]:\n    return 'no'\nreturn str(eval(s))",
      "s = request.form['expr']\nreturn str(eval(s))",
    ],
    [
      'host of the parsed URL',
      'redirect',
      "import flask, urllib.parse\nu = request.args['next']\nparts = urllib.parse.urlparse(u)\nif parts.netloc not in ['example.org', 'www.example.org']:\n    return 'no'\nreturn flask.redirect(u)",
      "import flask\nu = request.args['next']\nreturn flask.redirect(u)",
    ],
    ['isalnum', 'cmdi', "n = request.args['n']\nif not n.isalnum():\n    return 'no'\nreturn str(os.system('id ' + n))", "n = request.args['n']\nreturn str(os.system('id ' + n))"],
  ];
  for (const [name, cat, guarded, open] of cases) {
    const g = await analyzePython(route(guarded));
    t.notOk(g.findings.some((f) => f.rule_id === `python.flow.${cat}`), `${name}: guarded, no ${cat} flow`);
    const o = await analyzePython(route(open));
    t.ok(o.findings.some((f) => f.rule_id === `python.flow.${cat}`), `${name}: the same without the guard is a flow`);
  }
  // a guard on one variable proves nothing about another
  const other = await analyzePython(route("p = request.args['f']\nq = request.args['g']\nif '..' in q:\n    return 'no'\nreturn open(p).read()"));
  t.ok(other.findings.some((f) => f.rule_id === 'python.flow.pathtraver'), 'the unguarded variable still flows');
});

t.test("a query's result is the store's data: the request's query text does not flow into the page", async (t) => {
  const src = route(
    "db = sqlite3.connect('app.db')\nn = request.args['n']\nrows = db.execute('SELECT name FROM t WHERE id = ?', (n,)).fetchall()\nreturn '<p>' + ', '.join(r[0] for r in rows) + '</p>'",
  );
  const a = await analyzePython(src);
  t.notOk(a.findings.some((f) => f.rule_id === 'python.flow.xss'), 'no xss flow from the bound parameter');
  t.same(blocking(a.findings), [], 'admitted');
  const echoed = await analyzePython(route("n = request.args['n']\nreturn '<p>' + n + '</p>'"));
  t.ok(echoed.findings.some((f) => f.rule_id === 'python.flow.xss'), 'the request value itself returned is a flow');
});
