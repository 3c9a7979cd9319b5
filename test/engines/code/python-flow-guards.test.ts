import t, { type Test } from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * Guards of the Python flow analysis that prove a value harmless in the branch they choose (issue 40,
 * after the OWASP benchmark work): a comparison with a constant or an allowlist of constants, and a
 * full match of a pattern of plain characters; and a number made from a weak random one staying weak.
 * Each proof has its near misses beside it, which must still block. The handlers are written for
 * these tests (none is a benchmark case).
 */
const HEAD = 'from flask import Flask, request, session\nimport os, re, random, secrets, sqlite3\napp = Flask(__name__)\n';
const route = (body: string): string => `${HEAD}@app.route('/r', methods=['POST'])\ndef handler():\n${body.replace(/^/gm, '    ')}\n`;
const SHELL = "os.system('convert --preset ' + mode + ' in.png out.png')\nreturn 'done'";
const SQL = "db = sqlite3.connect('shop.db')\ndb.execute(\"SELECT sku FROM items WHERE colour = '\" + mode + \"'\")\nreturn 'done'";
const READ = "mode = request.form.get('mode', '')";

const flowsOf = (fs: Finding[], cat: string): Finding[] => fs.filter((f) => f.rule_id === `python.flow.${cat}` && isBlocking(f));
const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => `${f.rule_id}@${f.line}`);

async function admits(t: Test, name: string, body: string): Promise<void> {
  const a = await analyzePython(route(body));
  t.ok(a.parseOk, `${name}: parses`);
  t.same(blocking(a.findings), [], `${name}: nothing blocks`);
}
async function flows(t: Test, name: string, body: string, cat: string): Promise<void> {
  const a = await analyzePython(route(body));
  t.ok(flowsOf(a.findings, cat).length, `${name}: ${cat} flow (${blocking(a.findings).join(', ')})`);
}

t.test('a value compared equal to a constant is that constant in the branch', async (t) => {
  await admits(t, '!= then return', `${READ}\nif mode != 'sepia':\n    return 'unknown preset'\n${SHELL}`);
  await admits(t, 'constant on the left', `${READ}\nif 'sepia' != mode:\n    return 'unknown preset'\n${SQL}`);
  await admits(t, '== branch', `${READ}\nif mode == 'sepia':\n    ${SHELL.replace('\n', '\n    ')}\nreturn 'no'`);
  await flows(t, 'the other branch of ==', `${READ}\nif mode == 'sepia':\n    return 'fine'\n${SHELL}`, 'cmdi');
  await flows(t, 'compared with another request value', `${READ}\nother = request.form.get('other', '')\nif mode != other:\n    return 'no'\n${SHELL}`, 'cmdi');
  await flows(t, 'a branch that does not leave', `${READ}\nif mode != 'sepia':\n    print('odd preset')\n${SHELL}`, 'cmdi');
});

t.test('a value found in a list of constants is one of them in the branch', async (t) => {
  await admits(t, 'tuple literal', `${READ}\nif mode not in ('sepia', 'mono'):\n    return 'unknown preset'\n${SHELL}`);
  await admits(t, 'set bound to a name', `PRESETS = {'sepia', 'mono', 'vivid'}\n${READ}\nif mode not in PRESETS:\n    return 'unknown preset'\n${SQL}`);
  await admits(t, 'in, branch taken', `${READ}\nif mode in ['sepia', 'mono']:\n    ${SQL.replace(/\n/g, '\n    ')}\nreturn 'no'`);
  await flows(t, 'not in, branch taken', `${READ}\nif mode not in ('sepia', 'mono'):\n    ${SQL.replace(/\n/g, '\n    ')}\nreturn 'no'`, 'sqli');
  await flows(t, 'a list holding request data', `${READ}\nallowed = ['sepia', request.args.get('extra', '')]\nif mode not in allowed:\n    return 'no'\n${SHELL}`, 'cmdi');
  await flows(t, 'a substring test is not membership', `${READ}\nif mode not in 'sepia mono':\n    return 'no'\n${SHELL}`, 'cmdi');
});

t.test('a full match of plain characters proves the value harmless for the classes it rules out', async (t) => {
  await admits(t, 're.fullmatch', `${READ}\nif not re.fullmatch(r'[a-z0-9_-]+', mode):\n    return 'bad'\n${SHELL}`);
  await admits(t, 're.match with \\Z', `${READ}\nif not re.match(r'[A-Za-z]{1,20}\\Z', mode):\n    return 'bad'\n${SHELL}`);
  await admits(t, 're.search anchored both ends, SQL', `${READ}\nif not re.search(r'^[a-z]+$', mode):\n    return 'bad'\n${SQL}`);
  await admits(t, 'from re import fullmatch', `${READ}\nfrom re import fullmatch\nif not fullmatch('[0-9]+', mode):\n    return 'bad'\n${SQL}`);
  // `$` also matches before a final newline, which splits a shell command in two
  await flows(t, '$ and a shell', `${READ}\nif not re.match(r'^[a-z]+$', mode):\n    return 'bad'\n${SHELL}`, 'cmdi');
  await flows(t, 'not anchored at the end', `${READ}\nif not re.match(r'[a-z]+', mode):\n    return 'bad'\n${SQL}`, 'sqli');
  await flows(t, 'search not anchored at the start', `${READ}\nif not re.search(r'[a-z]+\\Z', mode):\n    return 'bad'\n${SQL}`, 'sqli');
  await flows(t, 'a negated class', `${READ}\nif not re.fullmatch(r"[^']+", mode):\n    return 'bad'\n${SQL}`, 'sqli');
  await flows(t, 'a quote in the class', `${READ}\nif not re.fullmatch(r"[a-z' ]+", mode):\n    return 'bad'\n${SQL}`, 'sqli');
  await flows(t, 'flags may change the anchors', `${READ}\nif not re.fullmatch(r'[a-z]+', mode, re.M):\n    return 'bad'\n${SHELL}`, 'cmdi');
  await flows(t, 'the branch where it did not match', `${READ}\nif re.fullmatch(r'[a-z]+', mode):\n    return 'fine'\n${SHELL}`, 'cmdi');
  await flows(t, 'a range across classes', `${READ}\nif not re.fullmatch(r'[0-z]+', mode):\n    return 'bad'\n${SQL}`, 'sqli');
  const dotted = `${READ}\nif not re.fullmatch(r'[a-z.]+', mode):\n    return 'bad'\n`;
  await flows(t, 'a dot in a path', `${dotted}return open('/srv/presets/' + mode).read()`, 'pathtraver');
  await admits(t, 'a dot in SQL', `${dotted}${SQL}`);
  await flows(t, 'a guard on another variable', `${READ}\nother = request.form.get('o', '')\nif not re.fullmatch(r'[a-z]+', other):\n    return 'bad'\n${SHELL}`, 'cmdi');
});

t.test('hostile: an object of unknown origin may lie in __eq__ or __radd__, so no guard proves it', async (t) => {
  const wrapped = "from textkit import Loose\nmode = Loose(request.form.get('mode', ''))";
  for (const [name, guard] of [
    ['equality', "if mode != 'sepia':\n    return 'no'"],
    ['allowlist', "if mode not in ('sepia', 'mono'):\n    return 'no'"],
    ['pattern', "if not re.fullmatch(r'[a-z]+', mode):\n    return 'no'"],
  ]) {
    const a = await analyzePython(route(`${wrapped}\n${guard}\n${SHELL}`));
    t.ok(blocking(a.findings).length, `${name}: still blocks (${blocking(a.findings).join(', ')})`);
    // a name bound nowhere in the file (a global set elsewhere) is no better
    const unbound = await analyzePython(`${HEAD}from textkit import *\n@app.route('/r')\ndef handler():\n${`${guard}\n${SHELL}`.replace(/^/gm, '    ')}\n`);
    t.ok(blocking(unbound.findings).length, `${name} on a name bound out of sight: still blocks (${blocking(unbound.findings).join(', ')})`);
  }
});

t.test('a number made from a weak random one is as guessable', async (t) => {
  await flows(t, 'int() of random.random()', "session['reset_pin'] = int(random.random() * 10 ** 6)\nreturn 'sent'", 'weakrand');
  await flows(t, 'round() of random.uniform()', "session['otp'] = round(random.uniform(0, 999999))\nreturn 'sent'", 'weakrand');
  await admits(t, 'secrets.randbelow', "session['reset_pin'] = int(secrets.randbelow(10 ** 6))\nreturn 'sent'");
});

t.test('the safe forms of everyday Flask code: an escaping template, bound SQL text, a file from one directory, a commonpath check', async (t) => {
  const flows = async (body: string, head = ''): Promise<string[]> =>
    (await analyzePython(route(`${head}name = request.form.get('name', '')\n${body}`))).findings.filter((f) => isBlocking(f)).map((f) => f.rule_id).sort();
  const tpl = 'from flask import render_template, render_template_string\n';
  t.same(await flows("return render_template('hello.html', name=name)", tpl), [], 'render_template of an .html template escapes what it renders');
  t.same(await flows("return render_template('hello.txt', name=name)", tpl), ['python.flow.xss'], 'a .txt template does not');
  t.same(await flows("app.jinja_env.autoescape = False\nreturn render_template('hello.html', name=name)", tpl), ['python.flow.xss'], 'nor one rendered with autoescape turned off');
  t.same(await flows("from markupsafe import Markup\nreturn render_template('hello.html', name=Markup(name))", tpl), ['python.flow.xss'], 'nor request text made Markup before it is rendered');
  t.same(await flows("return render_template(request.args.get('t', 'a.html'), name=name)", tpl), ['python.flow.xss'], 'nor a template the client names');
  t.ok((await flows('return render_template_string(name)', tpl)).includes('python.flow.xss'), 'a template made of the request stays a finding');
  const sa = 'from sqlalchemy import text, create_engine\ne = create_engine("sqlite://")\n';
  t.same(await flows("with e.connect() as c:\n    c.execute(text('SELECT * FROM t WHERE a = :a'), {'a': name})\nreturn 'ok'", sa), [], 'text() of constant SQL, the value bound');
  t.same(await flows("with e.connect() as c:\n    c.execute(text(\"SELECT * FROM t WHERE a = '\" + name + \"'\"))\nreturn 'ok'", sa), ['python.flow.sqli', 'python.flow.sqli', 'python.sql_injection.string_built'], 'text() of SQL built from the request');
  const fs = 'from flask import send_from_directory, send_file\n';
  t.same(await flows("return send_from_directory('/srv/files', name)", fs), [], 'send_from_directory joins the name safely');
  t.same(await flows("return send_from_directory(name, 'index.txt')", fs), ['python.flow.pathtraver'], 'a directory the client names');
  t.same(await flows("return send_file('/srv/files/' + name)", fs), ['python.flow.pathtraver', 'python.flow.xss'], 'send_file of a path built from the request');
  const common = "base = '/srv/files'\np = os.path.abspath(os.path.join(base, name))\n";
  t.same(await flows(`${common}if os.path.commonpath([base, p]) != base:\n    return 'no', 400\nos.remove(p)\nreturn 'ok'`), [], 'commonpath of the resolved path and the base is the base');
  t.same(await flows(`p = os.path.abspath(os.path.join('/srv/files', name))\nbase = request.form.get('base', '/srv')\nif os.path.commonpath([base, p]) != base:\n    return 'no', 400\nos.remove(p)\nreturn 'ok'`), ['python.flow.pathtraver'], 'a base the client chose');
  t.same(await flows(`p = os.path.join('/srv/files', name)\nbase = '/srv/files'\nif os.path.commonpath([base, p]) != base:\n    return 'no', 400\nos.remove(p)\nreturn 'ok'`), ['python.flow.pathtraver'], 'a path not resolved (`..` still in it)');
});

t.test('Django and FastAPI: escaping templates and JSON answers are no page; an HTML response is one wherever it is built', async (t) => {
  const blocks = async (code: string): Promise<string[]> => (await analyzePython(code)).findings.filter((f) => isBlocking(f)).map((f) => f.rule_id).sort();
  const dj = (ret: string, imports: string): string => `${imports}\ndef view(request):\n    n = request.GET.get('n', '')\n    return ${ret}\n`;
  t.same(await blocks(dj("render(request, 'page.html', {'n': n})", 'from django.shortcuts import render')), [], 'Django render (autoescape)');
  t.same(await blocks(dj("render(request, 'page.html', {'n': mark_safe(n)})", 'from django.shortcuts import render\nfrom django.utils.safestring import mark_safe')), ['python.flow.xss'], 'Django render of request text marked safe');
  t.same(await blocks(dj("JsonResponse({'n': n})", 'from django.http import JsonResponse')), [], 'JsonResponse');
  t.same(await blocks(dj("HttpResponse('<p>' + n + '</p>')", 'from django.http import HttpResponse')), ['python.flow.xss'], 'HttpResponse of markup built from the request');
  const fa = (deco: string, ret: string, imports = ''): string => `from fastapi import FastAPI, APIRouter\nfrom fastapi.responses import HTMLResponse, PlainTextResponse\n${imports}\napp = FastAPI()\nrouter = APIRouter()\n@${deco}\ndef view(n: str):\n    return ${ret}\n`;
  t.same(await blocks(fa("app.get('/x')", "{'n': n}")), [], 'a dict from a FastAPI route is JSON');
  t.same(await blocks(fa("router.post('/x')", "'<p>' + n + '</p>'")), [], 'so is a string (a JSON string)');
  t.same(await blocks(fa("app.get('/x')", "PlainTextResponse(n)")), [], 'PlainTextResponse');
  t.same(await blocks(fa("app.get('/x')", "HTMLResponse('<p>' + n + '</p>')")), ['python.flow.xss'], 'HTMLResponse is a page');
  t.same(await blocks(fa("app.get('/x', response_class=HTMLResponse)", "'<p>' + n + '</p>'")), ['python.flow.xss'], 'response_class=HTMLResponse makes the return a page');
  t.same(await blocks(fa("app.get('/x')", "'<p>' + n + '</p>'").replace('app = FastAPI()', 'app = FastAPI(default_response_class=HTMLResponse)')), ['python.flow.xss'], 'so does an app whose default response class is HTML');
  t.same(await blocks(fa("app.get('/x')", "{'token': str(random.random())}", 'import random')), ['python.flow.weakrand'], 'a weak random token handed out as JSON is still weak');
  // a Flask app's get() is a Flask route: its return is the page
  t.same(await blocks("from flask import Flask\napp = Flask(__name__)\n@app.get('/x/<n>')\ndef view(n):\n    return '<p>' + n + '</p>'\n"), ['python.flow.xss'], 'Flask app.get: the page');
});

t.test('a session value checked against a plain pattern has crossed the trust boundary validated', async (t) => {
  const trust = async (body: string): Promise<boolean> =>
    (await analyzePython(route(`user = request.form.get('user', '')\n${body}\nreturn 'ok'`))).findings.some((f) => isBlocking(f) && f.rule_id === 'python.flow.trustbound');
  t.notOk(await trust("if not re.fullmatch(r'[a-z0-9]{1,32}', user):\n    return 'no', 400\nsession['user'] = user"), 'a full match of plain characters');
  t.notOk(await trust("if not user.isalnum():\n    return 'no', 400\nsession['user'] = user"), 'isalnum');
  t.ok(await trust("session['user'] = user"), 'unchecked');
  t.ok(await trust("if not re.match(r'[a-z]', user):\n    return 'no', 400\nsession['user'] = user"), 'a match of the first character only');
});
