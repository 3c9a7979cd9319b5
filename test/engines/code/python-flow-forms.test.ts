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
  for (const [name, ret, flows] of cases) {
    const a = await analyzePython(route(HEADER + ret));
    t.equal(a.findings.some((f) => f.rule_id === 'python.flow.xss' && isBlocking(f)), flows, `${name}: ${flows ? 'an xss flow' : 'no xss flow'}`);
  }
  // returns of two shapes (a string on an early path, a response built from a tuple on the other):
  // the join of the two lost the tuple's items, and its headers were read as the page
  const early = "if not v:\n    return 'nothing to echo'\n";
  const joined: Array<[string, string, boolean]> = [
    ['early string, then make_response((body, headers))', `${early}out = make_response(('<p>saved</p>', {'X-Echo': v}))\nreturn out`, false],
    ['early string, then (body, headers)', `${early}return '<p>saved</p>', {'X-Echo': v}`, false],
    ['early string, then make_response((tainted body, headers))', `${early}out = make_response(('<p>' + v + '</p>', {'X-Echo': 'ok'}))\nreturn out`, true],
    ['early tainted string, then make_response((body, headers))', `if v.startswith('<'):\n    return 'bad: ' + v\nreturn make_response(('<p>saved</p>', {'X-Echo': v}))`, true],
  ];
  for (const [name, body, flows] of joined) {
    const a = await analyzePython(route(HEADER + body));
    t.equal(a.findings.some((f) => f.rule_id === 'python.flow.xss' && isBlocking(f)), flows, `${name}: ${flows ? 'an xss flow' : 'no xss flow'}`);
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
