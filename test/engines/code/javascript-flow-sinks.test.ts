import t from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript } from '../../../plugins/engines/code/analyze.js';

/**
 * The Node sink forms of the JavaScript flow analysis's rule table (docs/engines/code.md) that the
 * class-by-class test does not write out: each reached by an Express request value is a flow of its
 * class, and its safe twin (the same handler with the value made harmless, or the safe API variant)
 * has no blocking finding. Written for this test; one handler per form.
 */
const route = (body: string): string =>
  `const express = require('express');\nconst app = express();\napp.post('/q', (req, res) => {\n${body.replace(/^/gm, '  ')}\n});\n`;
const koa = (body: string): string => `const Koa = require('koa');\nconst app = new Koa();\napp.use(async (ctx) => {\n${body.replace(/^/gm, '  ')}\n});\n`;
const flows = (fs: Finding[], cat: string): Finding[] => fs.filter((f) => f.rule_id === `javascript.flow.${cat}` && isBlocking(f));
const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => f.rule_id);

/** [form, class, vulnerable, safe] */
const FORMS: Array<[string, string, string, string]> = [
  ['execSync', 'cmdi', route("const cp = require('child_process');\nres.send(String(cp.execSync('du -sh ' + req.body.dir).length));"), route("const cp = require('child_process');\nres.send(String(cp.execFileSync('du', ['-sh', req.body.dir]).length));")],
  ['shelljs.exec', 'cmdi', route("const shell = require('shelljs');\nshell.exec(`tar czf /tmp/out.tgz ${req.body.dir}`);\nres.end();"), route("const shell = require('shelljs');\nconst quote = require('shell-quote').quote;\nshell.exec('tar czf /tmp/out.tgz ' + quote([req.body.dir]));\nres.end();")],
  ['spawn of a program from the request', 'cmdi', route("const { spawn } = require('child_process');\nspawn(req.body.tool, ['--version']);\nres.end();"), route("const { spawn } = require('child_process');\nspawn('git', ['--version']);\nres.end();")],
  ['vm.runInThisContext', 'codeinj', route("const vm = require('vm');\nres.json(vm.runInThisContext(req.body.formula));"), route("const vm = require('vm');\nres.json(vm.runInThisContext(String(Number(req.body.formula)) + ' * 2'));")],
  ['new vm.Script', 'codeinj', route("const vm = require('node:vm');\nconst s = new vm.Script(req.body.src);\nres.json(s.runInNewContext({}));"), route("const vm = require('node:vm');\nconst s = new vm.Script('6 * 7');\nres.json(s.runInNewContext({}));")],
  ['vm.compileFunction', 'codeinj', route("const vm = require('vm');\nconst f = vm.compileFunction(req.body.body, ['x']);\nres.json(f(2));"), route("const vm = require('vm');\nconst f = vm.compileFunction('return x + 1', ['x']);\nres.json(f(2));")],
  ['setTimeout with a string', 'codeinj', route("setTimeout('notify(' + req.body.id + ')', 10);\nres.end();"), route('setTimeout(() => res.end(), Number(req.body.delay));')],
  ['js-yaml loadAll', 'deserialization', route("const yaml = require('js-yaml');\nres.json(yaml.loadAll(req.body.docs));"), route("const yaml = require('js-yaml');\nres.json(yaml.loadAll(req.body.docs, null, { schema: yaml.FAILSAFE_SCHEMA }));")],
  ['knex whereRaw', 'sqli', route("const knex = require('knex')({ client: 'pg' });\nknex('orders').whereRaw(`status = '${req.body.status}'`).then((r) => res.json(r));"), route("const knex = require('knex')({ client: 'pg' });\nknex('orders').whereRaw('status = ?', [req.body.status]).then((r) => res.json(r));")],
  ['better-sqlite3 prepare', 'sqli', route("const Database = require('better-sqlite3');\nconst db = new Database('shop.db');\nres.json(db.prepare(\"SELECT * FROM items WHERE tag = '\" + req.body.tag + \"'\").all());"), route("const Database = require('better-sqlite3');\nconst db = new Database('shop.db');\nres.json(db.prepare('SELECT * FROM items WHERE tag = ?').all(req.body.tag));")],
  ['pg query config text', 'sqli', route("const { Client } = require('pg');\nconst c = new Client();\nc.query({ text: 'DELETE FROM carts WHERE owner = ' + req.body.owner }).then(() => res.end());"), route("const { Client } = require('pg');\nconst c = new Client();\nc.query({ text: 'DELETE FROM carts WHERE owner = $1', values: [req.body.owner] }).then(() => res.end());")],
  ['fs/promises', 'pathtraver', "const fsp = require('fs/promises');\nconst app = require('express')();\napp.get('/doc', async (req, res) => {\n  res.type('text').send(await fsp.readFile('/srv/docs/' + req.query.name, 'utf8'));\n});\n", "const fsp = require('fs/promises');\nconst path = require('path');\nconst app = require('express')();\napp.get('/doc', async (req, res) => {\n  res.type('text').send(await fsp.readFile('/srv/docs/' + path.basename(req.query.name), 'utf8'));\n});\n"],
  ['res.download', 'pathtraver', route("res.download('/srv/exports/' + req.body.file);"), route("res.download(req.body.file, { root: '/srv/exports' });")],
  ['fs.unlinkSync', 'pathtraver', route("const fs = require('fs');\nfs.unlinkSync(`/var/uploads/${req.body.name}`);\nres.end();"), route("const fs = require('fs');\nconst path = require('path');\nfs.unlinkSync(`/var/uploads/${path.basename(req.body.name)}`);\nres.end();")],
  ['res.end with HTML', 'xss', route("res.setHeader('Content-Type', 'text/html');\nres.end('<b>' + req.body.nick + '</b>');"), route("res.setHeader('Content-Type', 'text/html');\nres.end('<b>' + require('escape-html')(req.body.nick) + '</b>');")],
  ['Koa ctx.body', 'xss', koa("ctx.body = '<p>' + ctx.request.query.msg + '</p>';"), koa("ctx.body = '<p>' + require('he').encode(ctx.request.query.msg) + '</p>';")],
  ['res.location', 'redirect', route('res.location(req.body.back);\nres.sendStatus(302);'), route("res.location('/orders/' + encodeURIComponent(req.body.back));\nres.sendStatus(302);")],
  ['Location header', 'redirect', route("res.set('Location', req.body.to);\nres.sendStatus(303);"), route("res.set('Location', '/home');\nres.sendStatus(303);")],
  ['Koa ctx.redirect', 'redirect', koa('ctx.redirect(ctx.query.returnTo);'), koa("ctx.redirect('/account/' + encodeURIComponent(ctx.query.returnTo));")],
  ['SHA-1', 'hash', "const crypto = require('crypto');\nexports.fp = (b) => crypto.createHash('sha1').update(b).digest('hex');\n", "const crypto = require('crypto');\nexports.fp = (b) => crypto.createHash('sha512').update(b).digest('hex');\n"],
  ['an algorithm not known', 'hash', "const crypto = require('crypto');\nexports.fp = (alg, b) => crypto.createHash(alg).update(b).digest('hex');\n", "const crypto = require('crypto');\nexports.fp = (b) => crypto.createHash('sha3-256').update(b).digest('hex');\n"],
  ['Koa cookie', 'securecookie', koa("ctx.cookies.set('cart', 'x1');\nctx.body = 'ok';"), koa("ctx.cookies.set('cart', 'x1', { secure: true, httpOnly: true });\nctx.body = 'ok';")],
  ['Math.random as a cookie', 'weakrand', route("res.cookie('csrf', Math.random().toString(16).slice(2), { secure: true, httpOnly: true });\nres.end();"), route("res.cookie('csrf', require('crypto').randomUUID(), { secure: true, httpOnly: true });\nres.end();")],
  ['Math.random scaled and rounded, as a session value', 'weakrand', route('req.session.code = Math.floor(Math.random() * 1e6);\nres.end();'), route("req.session.code = require('crypto').randomInt(1e6);\nres.end();")],
  ['a digest of request data sent as the page (a hex digest holds no markup)', 'xss', route("res.send('<p>' + req.body.name + '</p>');"), route("const crypto = require('crypto');\nres.send('<p>' + crypto.createHash('sha256').update(req.body.name).digest('hex') + '</p>');")],
  ['Math.random hashed, as a cookie (still guessable)', 'weakrand', route("const crypto = require('crypto');\nres.cookie('sid', crypto.createHash('sha256').update(String(Math.random())).digest('hex'), { secure: true, httpOnly: true });\nres.end();"), route("const crypto = require('crypto');\nres.cookie('sid', crypto.createHash('sha256').update(crypto.randomBytes(32)).digest('hex'), { secure: true, httpOnly: true });\nres.end();")],
  ['the session written with request data', 'trustbound', route('req.session.user = req.body.user;\nres.end();'), route("const user = req.body.user;\nif (!/^[a-z0-9]{1,32}$/.test(user)) return res.sendStatus(400);\nreq.session.user = user;\nres.end();")],
  ['a session key the request names', 'trustbound', route("req.session[req.body.field] = 'on';\nres.end();"), route("req.session['theme'] = 'dark';\nres.end();")],
  ['Math.random from a function named for a secret', 'weakrand', 'function makeResetToken() {\n  return Math.floor(Math.random() * 1e9).toString(36);\n}\nmodule.exports = { makeResetToken };\n', "function makeResetToken() {\n  return require('crypto').randomBytes(12).toString('base64url');\n}\nmodule.exports = { makeResetToken };\n"],
];

t.test('every Node sink form: the request value is a flow of its class, the safe twin admits', async (t) => {
  for (const [form, cat, vulnerable, safe] of FORMS) {
    const bad = analyzeJavaScript(vulnerable);
    t.ok(flows(bad.findings, cat).length, `${form}: ${cat} flow (${bad.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
    const ok = analyzeJavaScript(safe);
    t.same(blocking(ok.findings), [], `${form}: the safe twin admits (${ok.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
  }
});
