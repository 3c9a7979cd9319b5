import t from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * Forms the Python flow analysis models beyond the basics of python-flow.test.ts, each with its
 * counterpart that must still block. The handlers below are written for these tests.
 */
const HEAD = 'from flask import Flask, request\nimport subprocess, os\napp = Flask(__name__)\n';
const route = (body: string): string => `${HEAD}@app.route('/q')\ndef handler():\n${body.replace(/^/gm, '    ')}\n`;
const blocking = (fs: Finding[]): Finding[] => fs.filter(isBlocking);
/** whether the handler `body` (under `route`) has a blocking finding of `rule` */
const finds = async (rule: string, body: string): Promise<boolean> => (await analyzePython(route(body))).findings.some((f) => isBlocking(f) && f.rule_id === rule);

t.test('an argv list built by appends: the program the branches pick is a shell either way, its command constant', async (t) => {
  const build = (last: string, prog = "'sh'"): string =>
    route(
      [
        "user = request.args.get('u', '')",
        'argv = []',
        "if 'nt' in os.name:",
        "    argv.append('cmd.exe')",
        "    argv.append('/c')",
        'else:',
        `    argv.append(${prog})`,
        "    argv.append('-c')",
        `argv.append(${last})`,
        'return subprocess.run(argv, capture_output=True).stdout',
      ].join('\n'),
    );
  const safe = await analyzePython(build("'uptime'"));
  t.same(blocking(safe.findings), [], 'constant command line: admitted');
  t.equal(safe.findings.find((f) => f.rule_id === 'python.process.dynamic_program')?.severity, 'LOW', 'the presence finding stays as LOW');
  const flow = await analyzePython(build("'echo ' + user"));
  t.ok(flow.findings.some((f) => f.rule_id === 'python.flow.cmdi' && isBlocking(f)), 'the request value in the command line is a flow');
  const unknownProgram = await analyzePython(build("'-c'", 'os.environ.get("SHELL_BIN")'));
  t.ok(blocking(unknownProgram.findings).length > 0, 'a program taken from outside the code is not admitted');
  const opaque = await analyzePython(`import subprocess\nfrom launcher import pick\nargv = []\nargv.append(pick())\nargv.append('-l')\nsubprocess.run(argv)\n`);
  t.ok(blocking(opaque.findings).some((f) => f.rule_id === 'python.process.dynamic_program'), 'a program of unknown origin keeps the presence finding');
  // an interpreter handed request data: the flow proves no shell runs, not that the program is harmless
  const interp = await analyzePython(route("argv = []\nargv.append('python3')\nargv.append('-c')\nargv.append(request.args['code'])\nreturn subprocess.run(argv).stdout"));
  t.ok(blocking(interp.findings).length > 0, 'a named program given request data is left to the presence rules');
});

t.test('a resolved pathlib path checked through its text: str(p).startswith(base) guards p; absolute() does not resolve', async (t) => {
  const build = (resolve: string, check: string): string =>
    route(
      [
        'import pathlib',
        "base = pathlib.Path('/srv/files')",
        `p = (base / request.args['f']).${resolve}()`,
        `if not ${check}.startswith(str(base)):`,
        "    return 'no'",
        'return p.read_text()',
      ].join('\n'),
    );
  const guarded = await analyzePython(build('resolve', 'str(p)'));
  t.notOk(guarded.findings.some((f) => f.rule_id === 'python.flow.pathtraver'), 'resolved, then prefix-checked as text: no pathtraver flow');
  const absolute = await analyzePython(build('absolute', 'str(p)'));
  t.ok(absolute.findings.some((f) => f.rule_id === 'python.flow.pathtraver'), 'absolute() keeps `..`: the prefix check proves nothing');
  const other = await analyzePython(build('resolve', 'str(base)'));
  t.ok(other.findings.some((f) => f.rule_id === 'python.flow.pathtraver'), 'a check on another value guards nothing');
});

t.test('a decoder undoes the encoder that made data safe: b64encode then b64decode, quote then unquote is raw again', async (t) => {
  const page = (expr: string): string => route(`import base64, urllib.parse\nv = request.args.get('v', '')\nshown = ${expr}\nreturn '<p>' + shown + '</p>'`);
  for (const expr of ["base64.b64decode(base64.b64encode(v.encode())).decode()", 'urllib.parse.unquote(urllib.parse.quote(v))']) {
    const a = await analyzePython(page(expr));
    t.ok(a.findings.some((f) => f.rule_id === 'python.flow.xss' && isBlocking(f)), `${expr}: the request value reaches the page`);
  }
  for (const expr of ["base64.b64encode(v.encode()).decode()", 'urllib.parse.quote(v)']) {
    const a = await analyzePython(page(expr));
    t.notOk(a.findings.some((f) => f.rule_id === 'python.flow.xss'), `${expr}: encoded, no markup can break out`);
  }
});

t.test('a response tuple: the request value in a header or the status is not the page; in the body it is', async (t) => {
  const HEADER = "from flask import make_response\nv = request.args.get('v', '')\n";
  const cases: Array<[string, string, boolean]> = [
    ['make_response((body, headers))', "return make_response(('<p>saved</p>', {'X-Echo': v}))", false],
    ['make_response(body, status, headers)', "return make_response('<p>saved</p>', 200, {'X-Echo': v})", false],
    ['returned (body, headers)', "return '<p>saved</p>', {'X-Echo': v}", false],
    ['make_response((tainted body, headers))', "return make_response(('<p>' + v + '</p>', {'X-Echo': 'ok'}))", true],
    ['make_response(tainted body)', "return make_response('<p>' + v + '</p>')", true],
    ['returned (tainted body, status)', "return '<p>' + v + '</p>', 200", true],
  ];
  // returns of two shapes (a string on an early path, a response built from a tuple on the other):
  // the join of the two lost the tuple's items, and its headers were read as the page
  const early = "if not v:\n    return 'nothing to echo'\n";
  const joined: Array<[string, string, boolean]> = [
    ['early string, then make_response((body, headers))', `${early}out = make_response(('<p>saved</p>', {'X-Echo': v}))\nreturn out`, false],
    ['early string, then (body, headers)', `${early}return '<p>saved</p>', {'X-Echo': v}`, false],
    ['early string, then make_response((tainted body, headers))', `${early}out = make_response(('<p>' + v + '</p>', {'X-Echo': 'ok'}))\nreturn out`, true],
    ['early tainted string, then make_response((body, headers))', `if v.startswith('<'):\n    return 'bad: ' + v\nreturn make_response(('<p>saved</p>', {'X-Echo': v}))`, true],
  ];
  for (const [name, body, flows] of [...cases, ...joined]) {
    t.equal(await finds('python.flow.xss', HEADER + body), flows, `${name}: ${flows ? 'an xss flow' : 'no xss flow'}`);
  }
  // a view that hands on another view's answer sends what that one sends
  const post = `${HEAD}from flask import make_response\n@app.route('/a', methods=['POST'])\ndef post():\n    v = request.form.get('v', '')\n    if not v:\n        return 'empty'\n    return make_response(('<p>ok</p>', {'X-Echo': v}))\n@app.route('/a', methods=['GET'])\ndef get():\n    return post()\n`;
  t.notOk((await analyzePython(post)).findings.some((f) => f.rule_id === 'python.flow.xss' && isBlocking(f)), 'a GET returning the POST handler: the header is still not the page');
});

t.test('an XPath literal: a value with its quote replaced away, between that quote, cannot end the literal', async (t) => {
  const query = (expr: string): string =>
    route(`from lxml import etree\ndoc = etree.parse('/srv/staff.xml')\nv = request.args.get('id', '')\nreturn str(len(doc.xpath(${expr})))`);
  const safe = [
    `f"/staff/person[@id='{v.replace("'", "&apos;")}']"`,
    `f'/staff/person[@id=\\'{v.replace("\\'", "")}\\']'`,
    `f'/staff/person[@id="{v.replace('"', '')}"]'`,
  ];
  for (const expr of safe) {
    const a = await analyzePython(query(expr));
    t.notOk(a.findings.some((f) => f.rule_id === 'python.flow.xpathi'), `${expr}: no xpathi flow`);
  }
  const open = [
    `f'/staff/person[@id="{v.replace("\\'", "")}"]'`, // the other quote delimits the literal
    `f"/staff/person[@id='{v.replace("'", "''")}']"`, // the replacement brings the quote back
    `f"/staff/person[@id='{v.replace("'", "&apos;")!r}']"`, // repr adds quotes of its own
    `f"/staff/person[@id={v.replace("'", "&apos;")}]"`, // not inside a literal at all
    `f"/staff/person[@id='{v.replace("'", "&apos;", 1)}']"`, // only the first quote replaced
    `f"/staff/person[@id='{v}']"`,
  ];
  for (const expr of open) {
    const a = await analyzePython(query(expr));
    t.ok(a.findings.some((f) => f.rule_id === 'python.flow.xpathi' && isBlocking(f)), `${expr}: an xpathi flow`);
  }
});

t.test('a Location header is a redirect; the body of a response object is its page, its headers are not', async (t) => {
  const head = 'from flask import Response, make_response\nfrom urllib.parse import urlparse\nv = request.args.get("next", "")\n';
  const flows = async (body: string): Promise<string[]> =>
    (await analyzePython(route(head + body))).findings.filter((f) => isBlocking(f) && f.rule_id.startsWith('python.flow.')).map((f) => f.rule_id).sort();
  t.same(await flows("return Response(status=302, headers={'Location': v})"), ['python.flow.redirect'], 'Response(headers=…)');
  t.same(await flows("return Response('', 302, {'location': v})"), ['python.flow.redirect'], 'positional headers, the name in any case');
  t.same(await flows("return make_response('', 302, {'Location': v})"), ['python.flow.redirect'], 'make_response(body, status, headers)');
  t.same(await flows("return make_response(('', 302, {'Location': v}))"), ['python.flow.redirect'], 'make_response of one tuple');
  t.same(await flows("return '', 302, {'Location': v}"), ['python.flow.redirect'], 'a returned (body, status, headers)');
  t.same(await flows("return Response(status=302, headers={'Location': '/home'})"), [], 'a constant Location');
  t.same(await flows("if urlparse(v).netloc not in ('', 'example.com'):\n    return 'no'\nreturn Response(status=302, headers={'Location': v})"), [], 'a host check on the target');
  t.same(await flows("return Response('<p>saved</p>', headers={'X-Echo': v})"), [], 'another header: neither page nor redirect');
  t.same(await flows("return Response('<p>' + v + '</p>')"), ['python.flow.xss'], 'the body is the page');
  t.same(await flows("return Response(response='<p>' + v + '</p>', status=200)"), ['python.flow.xss'], 'the body by keyword');
  t.same(await flows("return Response(v, mimetype='text/plain')"), [], 'served as text/plain: shown as data');
  t.same(await flows("return Response(v, content_type='application/json; charset=utf-8')"), [], 'served as JSON');
  t.same(await flows("return Response(v, mimetype='text/html')"), ['python.flow.xss'], 'served as HTML');
  t.same(await flows("return Response(v, mimetype=request.args.get('t', 'text/plain'))"), ['python.flow.xss'], 'a type the client picks');
  t.same(await flows("return Response(v, mimetype='image/svg+xml')"), ['python.flow.xss'], 'SVG runs scripts');
});

t.test('a session written through a method crosses the trust boundary as a subscript store does', async (t) => {
  const head = 'from flask import session\nv = request.form.get("u", "")\n';
  const trust = (body: string): Promise<boolean> => finds('python.flow.trustbound', head + body);
  t.ok(await trust("session['user'] = v\nreturn 'ok'"), 'the subscript store (as before)');
  t.ok(await trust("session.update({'user': v})\nreturn 'ok'"), 'update');
  t.ok(await trust("session.update(user=v)\nreturn 'ok'"), 'update by keyword');
  t.ok(await trust("session.setdefault('user', v)\nreturn 'ok'"), 'setdefault');
  t.notOk(await trust("session.update({'user': 'guest'})\nreturn 'ok'"), 'a constant');
  t.notOk(await trust("prefs = {}\nprefs.update({'user': v})\nreturn 'ok'"), 'a plain dict is no session');
});

t.test('an XML parser with external entities on, fed directly, is an XXE sink', async (t) => {
  const xxe = (imports: string, body: string): Promise<boolean> => finds('python.flow.xxe', `${imports}\nv = request.get_data(as_text=True)\n${body}`);
  const sax = 'import io, xml.sax\nfrom xml.sax.handler import feature_external_ges';
  t.ok(await xxe(sax, "p = xml.sax.make_parser()\np.setFeature(feature_external_ges, True)\np.parse(io.StringIO(v))\nreturn 'ok'"), 'sax: parse');
  t.notOk(await xxe(sax, "p = xml.sax.make_parser()\np.parse(io.StringIO(v))\nreturn 'ok'"), 'sax without external entities');
  t.ok(await xxe('from lxml import etree', "p = etree.XMLParser(resolve_entities=True)\np.feed(v)\nreturn str(p.close())"), 'lxml: feed');
  t.notOk(await xxe('from lxml import etree', "p = etree.XMLParser(resolve_entities=False)\np.feed(v)\nreturn str(p.close())"), 'lxml with entities off');
  // the same parser built in a helper the route calls: the filters must not skip the helper
  t.ok(await xxe('from lxml import etree', "def load(data):\n    p = etree.XMLParser(resolve_entities=True)\n    p.feed(data)\n    return p.close()\nreturn str(load(v))"), 'fed in a helper');
});

t.test('what a Flask view sends: a dict or list is JSON, json.dumps text is a page, a Markup template escapes what it is given', async (t) => {
  const head = 'from flask import jsonify\nfrom markupsafe import Markup\nimport json\nv = request.args.get("q", "")\n';
  const xss = (body: string): Promise<boolean> => finds('python.flow.xss', head + body);
  t.notOk(await xss("return {'q': v}"), 'a dict is sent as JSON');
  t.notOk(await xss('return [v]'), 'a list is sent as JSON');
  t.notOk(await xss("return {'q': v}, 201"), 'a dict as the body of a response tuple');
  t.ok(await xss("return json.dumps({'q': v})"), 'json.dumps is text: served as a page it keeps <script>');
  t.notOk(await xss("return jsonify({'q': v})"), 'jsonify answers application/json');
  t.ok(await xss("return '<p>' + v + '</p>', 200"), 'a string body of a tuple is the page');
  t.notOk(await xss("return Markup('<b>%s</b>') % v"), 'Markup % escapes');
  t.notOk(await xss("return Markup('<b>{}</b>').format(v)"), 'Markup.format escapes');
  t.notOk(await xss("return Markup('<b>') + v"), 'Markup + str escapes the str');
  t.notOk(await xss('return Markup.escape(v)'), 'Markup.escape');
  t.ok(await xss('return Markup(v)'), 'Markup of the request is trusted markup made of it');
  t.ok(await xss("return Markup('<b>%s</b>' % v)"), 'formatted before it became Markup');
});
