import t from 'tap';
import code, { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzeTypeScript } from '../../../plugins/engines/code/analyze.js';
import { judge } from '../../../sidecar/verify/items.js';
import { toSarif } from '../../../sidecar/verify/sarif.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * The JavaScript/TypeScript source-to-sink flow analysis (issue 40), with the Python analysis's
 * verdict semantics: a flow from a request to a sink is a finding with its path (source line → steps
 * → sink line) and CWE; a sink whose every dangerous argument is proven constant or sanitised loses
 * its blocking presence finding; data of unknown origin leaves it undecided and says why. The
 * handlers below are written for these tests.
 */
const HEAD = "const express = require('express');\nconst app = express();\n";
const route = (body: string): string => `${HEAD}app.get('/q', (req, res) => {\n${body.replace(/^/gm, '  ')}\n});\n`;
const LINE0 = 4; // first line of the handler body
const CP = "const { exec, execFile, spawn } = require('child_process');";

const blocking = (fs: Finding[]): Finding[] => fs.filter(isBlocking);
const flows = (fs: Finding[], cat: string): Finding[] => fs.filter((f) => f.rule_id === `javascript.flow.${cat}`);

const TAINTED = route([CP, 'const host = req.query.host;', 'const cmd = `ping -c 1 ${host}`;', 'exec(cmd, () => res.end());'].join('\n'));

/** Each class: a handler where request data reaches the sink, and the same handler made safe. */
const CLASSES: Array<[cat: string, cwe: number, vulnerable: string, safe: string]> = [
  ['cmdi', 78, route(`${CP}\nexec('ls ' + req.query.dir);`), route(`${CP}\nexecFile('ls', [req.query.dir], (e, out) => res.type('text').send(out));`)],
  ['cmdi', 78, route(`${CP}\nspawn('ls', [req.query.dir], { shell: true });`), route(`${CP}\nexec('ls ' + parseInt(req.query.n, 10));`)],
  ['codeinj', 94, route("res.json(eval('(' + req.body.expr + ')'));"), route("res.json(eval('1 + ' + Number(req.body.x)));")],
  ['codeinj', 94, route("const vm = require('vm');\nres.json(vm.runInNewContext(req.query.code, {}));"), route("const vm = require('vm');\nres.json(vm.runInNewContext('1 + 1', {}));")],
  ['codeinj', 94, route("const f = new Function('a', req.body.src);\nres.json(f(1));"), route("const f = new Function('a', 'return a * 2');\nres.json(f(1));")],
  [
    'sqli', 89,
    route("const db = require('mysql').createConnection({});\ndb.query(\"SELECT * FROM users WHERE name = '\" + req.query.name + \"'\", (e, rows) => res.json(rows));"),
    route("const db = require('mysql').createConnection({});\ndb.query('SELECT * FROM users WHERE name = ?', [req.query.name], (e, rows) => res.json(rows));"),
  ],
  [
    'pathtraver', 22,
    route("const fs = require('fs');\nconst path = require('path');\nres.json({ text: fs.readFileSync(path.join(__dirname, 'files', req.params.name), 'utf8') });"),
    route("const fs = require('fs');\nconst path = require('path');\nres.json({ text: fs.readFileSync(path.join(__dirname, 'files', path.basename(req.params.name)), 'utf8') });"),
  ],
  [
    'pathtraver', 22,
    route("const path = require('path');\nres.sendFile(path.resolve('/srv/files', req.params.name));"),
    route("const path = require('path');\nconst base = path.resolve('/srv/files');\nconst p = path.resolve(base, req.params.name);\nif (!p.startsWith(base + path.sep)) return res.sendStatus(403);\nres.sendFile(p);"),
  ],
  ['xss', 79, route("res.send('<h1>Hello ' + req.query.name + '</h1>');"), route("const escapeHtml = require('escape-html');\nres.send('<h1>Hello ' + escapeHtml(req.query.name) + '</h1>');")],
  ['xss', 79, route('res.write(`<p>${req.cookies.theme}</p>`);\nres.end();'), route("res.set('Content-Type', 'text/plain');\nres.send('Hello ' + req.query.name);")],
  ['xss', 79, route("res.status(200).send('Hello ' + req.query.name);"), route("res.set({ 'Content-Type': 'application/json' });\nres.send('Hello ' + req.query.name);")],
  [
    'redirect', 601,
    route('res.redirect(req.query.next);'),
    route("const u = new URL(req.query.next, 'https://example.org');\nif (u.host !== 'example.org') return res.sendStatus(400);\nres.redirect(u.pathname);"),
  ],
  ['hash', 328, "const crypto = require('crypto');\nmodule.exports = (s) => crypto.createHash('md5').update(s).digest('hex');\n", "const crypto = require('crypto');\nmodule.exports = (s) => crypto.createHash('sha256').update(s).digest('hex');\n"],
  ['weakrand', 330, route('const token = Math.random().toString(36).slice(2);\nres.json({ token });'), route("const token = require('crypto').randomBytes(16).toString('hex');\nres.json({ token });")],
  ['securecookie', 614, route("res.cookie('sid', 'abc');\nres.end();"), route("res.cookie('sid', 'abc', { secure: true, httpOnly: true });\nres.end();")],
  [
    'deserialization', 502,
    route("const serialize = require('node-serialize');\nres.json(serialize.unserialize(req.cookies.profile));"),
    route("res.json(JSON.parse(req.cookies.profile));"),
  ],
  ['deserialization', 502, route("const yaml = require('js-yaml');\nres.json(yaml.load(req.body.doc));"), route("const yaml = require('js-yaml');\nres.json(yaml.load(req.body.doc, { schema: yaml.JSON_SCHEMA }));")],
];

t.test('a request value reaching a shell is a flow finding with its path and CWE', async (t) => {
  const a = analyzeJavaScript(TAINTED);
  const f = flows(a.findings, 'cmdi')[0];
  t.ok(f, 'flow finding');
  t.equal(f?.cwe, 78);
  t.same(f?.path, [LINE0 + 1, LINE0 + 2, LINE0 + 3], 'source line → step → sink line');
  t.equal(f?.line, LINE0 + 3);
  t.match(f?.message, /req\.query/);
  t.ok(blocking(a.findings).length > 0);
});

t.test('every class: the vulnerable handler is a flow with its CWE, the safe one admits', async (t) => {
  for (const [cat, cwe, vulnerable, safe] of CLASSES) {
    const bad = analyzeJavaScript(vulnerable);
    const f = flows(bad.findings, cat)[0];
    t.ok(f && isBlocking(f), `${cat}: flow finding in ${bad.findings.map((x) => x.rule_id).join(', ')}`);
    t.equal(f?.cwe, cwe, `${cat}: CWE-${cwe}`);
    const ok = analyzeJavaScript(safe);
    t.same(blocking(ok.findings), [], `${cat}: the safe variant admits (${ok.findings.map((x) => `${x.rule_id}:${x.severity}`).join(', ')})`);
  }
});

t.test('propagation: destructuring, same-file returns, arrays, callbacks, Koa, node:http, process.argv', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['destructuring', route(`${CP}\nconst { name } = req.body;\nexec('echo ' + name);`), 'cmdi'],
    ['return of a function of the file', `${CP}\nfunction build(x) {\n  return 'ls ' + x;\n}\napp.get('/q', (req, res) => exec(build(req.query.d)));\n`, 'cmdi'],
    ['array push and join', route(`${CP}\nconst parts = ['ls'];\nparts.push(req.query.d);\nexec(parts.join(' '));`), 'cmdi'],
    ['object member', route("const opts = { expr: req.query.e };\nres.json(eval(opts.expr));"), 'codeinj'],
    ['request body from data events', route("let body = '';\nreq.on('data', (c) => { body += c; });\nreq.on('end', () => res.json(eval(body)));"), 'codeinj'],
    ['sqlite3 all', "const sqlite3 = require('sqlite3');\nconst db = new sqlite3.Database('app.db');\napp.get('/q', (req, res) => db.all(\"SELECT * FROM t WHERE name = '\" + req.query.n + \"'\", (e, rows) => res.json(rows)));\n", 'sqli'],
    ['router.route().get(handler)', "const router = require('express').Router();\nrouter.route('/q').get((req, res) => res.send('<p>' + req.query.q + '</p>'));\n", 'xss'],
    ['an interpreter with -e', route(`${CP}\nexecFile('node', ['-e', req.body.script], () => res.end());`), 'codeinj'],
    ['Fastify reply', "const fastify = require('fastify')();\nfastify.get('/', async (request, reply) => {\n  reply.code(200).send('<p>' + request.query.q + '</p>');\n});\n", 'xss'],
    ['Koa context', "const Koa = require('koa');\nconst app = new Koa();\napp.use(async (ctx) => {\n  ctx.body = `<p>${ctx.query.q}</p>`;\n});\n", 'xss'],
    ['node:http', "const http = require('http');\nconst { exec } = require('child_process');\nhttp.createServer((req, res) => {\n  exec('nslookup ' + new URL(req.url, 'http://x').searchParams.get('h'));\n  res.end('ok');\n});\n", 'cmdi'],
    ['process.argv', "const { execSync } = require('child_process');\nexecSync('git log ' + process.argv[2]);\n", 'cmdi'],
    ['exported function parameter', "const { exec } = require('child_process');\nmodule.exports = function run(cmd) {\n  exec(cmd);\n};\n", 'cmdi'],
    ['a function called here with a constant and exported', "const { exec } = require('child_process');\nfunction run(cmd) {\n  exec(cmd);\n}\nrun('ls');\nmodule.exports = run;\n", 'cmdi'],
    ['an assignment before a throw reaches the code after the catch', route(`${CP}\nlet x = 'ls';\ntry {\n  x = req.query.a;\n  throw new Error('no');\n} catch (e) {\n  res.status(400);\n}\nexec(x);`), 'cmdi'],
    ['a closure run after a branch rebound what it reads', route(`${CP}\nlet cmd = 'ls';\nconst run = () => exec(cmd);\nif (req.query.x) {\n  cmd = req.query.c;\n}\nrun();`), 'cmdi'],
    ['arguments object', route(`${CP}\nfunction run() {\n  exec(arguments[0]);\n}\nrun(req.query.c);`), 'cmdi'],
    ['a shell with -c', route(`${CP}\nspawn('sh', ['-c', 'ls ' + req.query.d]);`), 'cmdi'],
    ['promisified exec', `${CP}\nconst run = require('util').promisify(exec);\napp.get('/q', async (req, res) => { await run('ping ' + req.query.h); res.end(); });\n`, 'cmdi'],
    ['handler declared apart', `${CP}\nasync function ping(req, res) {\n  exec('ping ' + req.query.h);\n}\napp.get('/p', ping);\n`, 'cmdi'],
    ['class method handler', `${CP}\nclass C {\n  ping(req, res) {\n    exec('ping ' + req.query.h);\n  }\n}\nmodule.exports = C;\n`, 'cmdi'],
    ['router, await, pg', "const { Pool } = require('pg');\nconst pool = new Pool();\nconst router = require('express').Router();\nrouter.get('/u/:id', async (req, res) => {\n  const { rows } = await pool.query(`SELECT * FROM users WHERE id = ${req.params.id}`);\n  res.json(rows);\n});\n", 'sqli'],
    ['session value from Math.random', "app.post('/login', (req, res) => {\n  req.session.token = Math.random().toString(36);\n  res.end();\n});\n", 'weakrand'],
  ];
  for (const [name, src, cat] of cases) {
    const a = analyzeJavaScript(src);
    t.ok(flows(a.findings, cat).length, `${name}: ${cat} flow (${a.findings.map((x) => x.rule_id).join(', ')})`);
  }
  const summary = flows(analyzeJavaScript(cases[1][1]).findings, 'cmdi')[0];
  t.same(summary?.path, [2, 3, 5], 'the path goes through the function that built the command (its parameter, its return)');
});

t.test('proven harmless: folded dead branch, overwrite, allowlist, anchored pattern; the presence finding stays as LOW', async (t) => {
  const fold = (cond: string) => route(`${CP}\nlet key = req.query.k;\nconst limit = 90;\nif (${cond}) {\n  key = 'default';\n}\nexec('echo ' + key);`);
  const cases: Array<[string, string]> = [
    ['dead branch', fold('3 * 70 - limit > 100')],
    ['overwrite', route(`${CP}\nlet d = req.query.d;\nd = '/tmp';\nexec('ls ' + d);`)],
    ['allowlist', route(`${CP}\nconst d = req.query.d;\nif (!['a', 'b'].includes(d)) return res.sendStatus(400);\nexec('ls ' + d);`)],
    ['anchored pattern', route(`${CP}\nconst d = req.query.d;\nif (!/^[a-z0-9_-]+$/.test(d)) return res.sendStatus(400);\nexec('ls ' + d);`)],
  ];
  for (const [name, src] of cases) {
    const a = analyzeJavaScript(src);
    t.same(blocking(a.findings), [], `${name}: nothing blocks`);
    const cleared = a.findings.find((f) => f.rule_id === 'javascript.process.shell_injection');
    t.equal(cleared?.severity, 'LOW', `${name}: the presence finding stays as LOW, for policies that refuse the call itself`);
    t.match(cleared?.message, /proven constant or sanitised/);
  }
  const live = analyzeJavaScript(fold('3 * 70 - limit > 200'));
  t.same(flows(live.findings, 'cmdi')[0]?.path, [LINE0 + 1, LINE0 + 6], 'the branch not taken: the request value flows');
  const loose = analyzeJavaScript(route(`${CP}\nconst d = req.query.d;\nif (!/^.+$/.test(d)) return res.sendStatus(400);\nexec('ls ' + d);`));
  t.ok(flows(loose.findings, 'cmdi').length, 'a pattern that lets anything through proves nothing');
  for (const target of ["'/users/' + req.params.id", "`https://example.org/u/${req.params.id}`"]) {
    t.same(blocking(analyzeJavaScript(route(`res.redirect(${target});`)).findings), [], `a redirect to ${target} stays on a fixed host`);
  }
  for (const target of ["'/' + req.query.next", "'https://example.org' + req.query.p"]) {
    t.ok(flows(analyzeJavaScript(route(`res.redirect(${target});`)).findings, 'redirect').length, `a redirect to ${target} may leave the host`);
  }
  const multiline = analyzeJavaScript(route(`${CP}\nconst d = req.query.d;\nif (!/^[a-z]+$/m.test(d)) return res.sendStatus(400);\nexec('ls ' + d);`));
  t.ok(flows(multiline.findings, 'cmdi').length, 'with the m flag the pattern checks one line only: no proof');
  const slash = analyzeJavaScript(route("const path = require('path');\nconst p = path.resolve('/srv/files', req.params.name);\nif (!p.startsWith('/')) return res.sendStatus(403);\nres.sendFile(p);"));
  t.ok(flows(slash.findings, 'pathtraver').length, "a prefix of '/' contains nothing");
  const internal = analyzeJavaScript(`${CP}\nfunction run(cmd) {\n  exec(cmd);\n}\nrun('ls');\nrun('pwd');\n`);
  t.same(blocking(internal.findings), [], 'a function only called here, with constants, admits');
  const own = analyzeJavaScript(route(`${CP}\nconst o = { cmd: 'ls' };\nexec(o.cmd);`));
  t.same(blocking(own.findings), [], 'an object no other code sees keeps its constant members');
  const other = analyzeJavaScript(route(`${CP}\nconst d = req.query.d;\nconst e = req.query.e;\nif (!/^[a-z]+$/.test(e)) return res.sendStatus(400);\nexec('ls ' + d);`));
  t.ok(flows(other.findings, 'cmdi').length, 'a guard on one variable proves nothing about another');
});

t.test('unknown origin is undecided: the presence finding stays blocking and says why', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['unbound name', "const { exec } = require('child_process');\nexec(cmd);\n", 'javascript.process.shell_injection'],
    ['module value', "const { exec } = require('child_process');\nconst config = require('./config');\nexec(config.cmd + ' -v');\n", 'javascript.process.shell_injection'],
    ['callee outside the file', "import { exec } from 'child_process';\nimport { nextJob } from './queue';\nexec(nextJob());\n", 'javascript.process.shell_injection'],
    ['callback parameter of a library', "const { exec } = require('child_process');\nconst q = require('./queue');\nq.on('job', (job) => exec(job.cmd));\n", 'javascript.process.shell_injection'],
    ['eval of an imported value', "import { src } from './code';\neval(src);\n", 'javascript.dangerous_call.eval'],
    ['a member written through another name', "const { exec } = require('child_process');\nconst o = { cmd: 'ls' };\nconst p = o;\nsetup(p);\nexec(o.cmd);\n", 'javascript.process.shell_injection'],
    ['an array handed to other code', "const { exec } = require('child_process');\nconst a = ['ls'];\nfill(a);\nexec(a.join(' '));\n", 'javascript.process.shell_injection'],
    ['a member never set', "const { exec } = require('child_process');\nconst o = {};\nexec(o.cmd);\n", 'javascript.process.shell_injection'],
    ['what a generator yields', "const { exec } = require('child_process');\nfunction* jobs() { yield 'ls'; }\nfor (const c of jobs()) exec(c);\n", 'javascript.process.shell_injection'],
    ['the global object', 'eval(window.location.hash.slice(1));\n', 'javascript.dangerous_call.eval'],
    ['a parameter named like a sanitiser', "const { exec } = require('child_process');\nmodule.exports = function (encodeURIComponent, d) {\n  exec('ls ' + encodeURIComponent(d));\n};\n", 'javascript.process.shell_injection'],
  ];
  for (const [name, src, rule] of cases) {
    const a = analyzeJavaScript(src);
    const f = a.findings.find((x) => x.rule_id === rule);
    t.ok(f && isBlocking(f), `${name}: ${rule} stays blocking`);
    t.match(f?.message, /flow undecided: .+ not proven safe/, `${name}: says why`);
    t.notOk(a.findings.some((x) => x.rule_id.startsWith('javascript.flow.')), `${name}: no flow is claimed either`);
  }
  const deser = analyzeJavaScript("const serialize = require('node-serialize');\nconst store = require('./store');\nmodule.exports = async () => serialize.unserialize(await store.load());\n");
  const d = deser.findings.find((x) => x.rule_id === 'javascript.deserialization.unsafe');
  t.ok(d && isBlocking(d), 'a code-running deserialiser given data of unknown origin blocks, as pickle does in Python');
  t.match(d?.message, /flow undecided: .+ not proven safe/);
  // reached by reflection: the flow does not decide it, whatever it is given
  const reflected = analyzeJavaScript("const F = Object.getPrototypeOf(async function () {}).constructor;\nF('x')();\n");
  t.ok(reflected.findings.some((f) => f.rule_id === 'javascript.dangerous_call.function' && isBlocking(f)), 'Function reached through .constructor keeps blocking');
});

t.test('TypeScript takes the same analysis, with its own rule prefix', async (t) => {
  const ts = analyzeTypeScript("import express, { Request, Response } from 'express';\nimport { exec } from 'child_process';\nconst app = express();\napp.post('/run', (req: Request, res: Response) => {\n  const target: string = req.body.target as string;\n  exec(`ping ${target}`);\n  res.sendStatus(204);\n});\n");
  const f = ts.findings.find((x) => x.rule_id === 'typescript.flow.cmdi');
  t.equal(f?.cwe, 78);
  t.same(f?.path, [5, 6]);
  const safe = analyzeTypeScript("import { exec } from 'child_process';\nconst n: number = parseInt(process.argv[2], 10);\nexec(`sleep ${n}`);\n");
  t.same(blocking(safe.findings), [], 'a converted argument admits');
});

t.test('hostile input: deep loops and call chains end within the budget and never admit by running out', async (t) => {
  const loops = `const { exec } = require('child_process');\nlet s = '';\n${'for (const a of process.argv) {\n'.repeat(40)}s += a;\n${'}\n'.repeat(40)}exec(s);\n`;
  const a = analyzeJavaScript(loops);
  t.ok(blocking(a.findings).length, 'the flow through forty nested loops blocks');
  const chain = `const { exec } = require('child_process');\n${Array.from({ length: 60 }, (_, i) => `function f${i}(x) { return f${i + 1}(x) + f${i + 1}(x) + f${i + 1}(x); }`).join('\n')}\nfunction f60(x) { return x; }\nexec(f0('ls'));\n`;
  const c = analyzeJavaScript(chain);
  const sink = c.findings.find((f) => f.rule_id === 'javascript.process.shell_injection');
  t.ok(sink && isBlocking(sink), 'a chain deeper than the analysis follows is not proven constant');
});

t.test('POST /verify/code: flows blocked with their path, proven-harmless code admitted, unknown origin not admitted; SARIF carries the flow', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 60_000 } } });
  t.teardown(() => s.close());
  const post = (src: string, language = 'javascript') => s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language, code: src } });

  const bad = await post(TAINTED);
  t.equal(bad.status, 200);
  t.equal(bad.body.admission, 'BLOCKED');
  const v = (bad.body.developer_fields.vulnerabilities as Finding[]).find((x) => x.rule_id === 'javascript.flow.cmdi');
  t.same(v?.path, [LINE0 + 1, LINE0 + 2, LINE0 + 3], 'the path crosses the wire');
  t.equal(v?.cwe, 78);

  for (const [cat, , vulnerable, safe] of CLASSES) {
    t.equal((await post(vulnerable)).body.admission, 'BLOCKED', `${cat}: vulnerable blocked`);
    t.equal((await post(safe)).body.admission, 'ADMIT', `${cat}: safe admitted`);
  }
  const deep = await post(`const { exec } = require('child_process');\nlet s = '';\n${'for (const a of process.argv) {\n'.repeat(40)}s += a;\n${'}\n'.repeat(40)}exec(s);\n`);
  t.equal(deep.body.admission, 'BLOCKED', 'forty nested loops: the flow is still found, nothing admitted by exhaustion');
  const ts = await post("import { exec } from 'child_process';\nconst n: number = Number(process.argv[2]);\nexec('sleep ' + n);\n", 'typescript');
  t.equal(ts.body.admission, 'ADMIT', 'TypeScript: a converted argument admits');

  const undecided = await post("const { exec } = require('child_process');\nconst { lookup } = require('./settings');\nexec(lookup());\n");
  t.equal(undecided.body.admission, 'BLOCKED');
  const why = (undecided.body.developer_fields.vulnerabilities as Finding[]).find((x) => x.rule_id === 'javascript.process.shell_injection');
  t.match(why?.message, /flow undecided: the result of \.\/settings\.lookup\(\)/);

  const item = { file: 'server.js', line: 1, kind: 'code' as const, body: { code: TAINTED, language: 'javascript' } };
  const sarif = toSarif([judge(item, { ...bad.body, vulnerabilities: bad.body.developer_fields.vulnerabilities })], new Map([['server.js', TAINTED]])) as any;
  const result = sarif.runs[0].results.find((r: any) => r.ruleId === 'javascript.flow.cmdi');
  t.same(result.codeFlows[0].threadFlows[0].locations.map((l: any) => l.location.physicalLocation.region.startLine), [LINE0 + 1, LINE0 + 2, LINE0 + 3], 'SARIF codeFlow: source → step → sink');
  t.ok(sarif.runs[0].tool.driver.rules.find((r: any) => r.id === 'javascript.flow.cmdi').properties.tags.includes('external/cwe/cwe-78'));
});
