import t from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * Hostile: a list or array whose items the flow analysis knows one by one must not lose a request value
 * through a method that moves, drops or adds items in place (`reverse`, `sort`, `remove`, `shift`,
 * `splice`, a set's `add`, `pop` at an index not known, a copy), `del`, a write at an index or key not
 * known, or a nested container changed through a subscript or another name (a container stored in
 * another is now of unknown origin, as in JavaScript; a tuple is not, it cannot change). Each of these admitted a
 * request value reaching SQL text before (the items were read as they were before the change). The same handlers with
 * only constants in the container still admit. Written for this test.
 */
const PY_HEAD = "from flask import Flask, request\nimport sqlite3\napp = Flask(__name__)\n@app.route('/s', methods=['POST'])\ndef handler():\n    db = sqlite3.connect('shop.db')\n";
const py = (body: string): string => `${PY_HEAD}${body.replace(/^/gm, '    ')}\n    return 'ok'\n`;
const PY_SINK = "db.execute(\"SELECT sku FROM items WHERE tag = '\" + pick + \"'\")";
const JS_HEAD = "const express = require('express');\nconst db = require('mysql').createConnection({});\nconst app = express();\n";
const js = (body: string): string => `${JS_HEAD}app.post('/s', (req, res) => {\n${body.replace(/^/gm, '  ')}\n  res.end();\n});\n`;
const JS_SINK = "db.query(\"SELECT sku FROM items WHERE tag = '\" + pick + \"'\");";

// a flow, or undecided where the container became shared (its members of unknown origin): either way not admitted
const blocks = (fs: Finding[]): boolean => fs.some((f) => isBlocking(f) && /\.flow\.sqli(\.undecided)?$/.test(f.rule_id));
const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => f.rule_id);

/** [method, body building `pick` from a container holding `tainted` (a placeholder) and constants] */
const PYTHON: Array<[string, string]> = [
  ['reverse', "tags = ['new', TAINTED]\ntags.reverse()\npick = tags[0]"],
  ['sort', "tags = ['zzz', TAINTED]\ntags.sort()\npick = tags[0]"],
  ['remove', "tags = ['new', TAINTED]\ntags.remove('new')\npick = tags[0]"],
  ['copy', "tags = [TAINTED]\npick = tags.copy()[0]"],
  ['pop at an index not known', "tags = [TAINTED, 'new']\npick = tags.pop(len(request.form.get('n', '')))"],
  ["a set's add, then an allowlist test", "pick = request.form.get('t', '')\nallowed = {'new', 'sale'}\nallowed.add(TAINTED)\nif pick not in allowed:\n    return 'no'"],
  ['del', "tags = ['new', TAINTED]\ndel tags[0]\npick = tags[0]"],
  ['a nested list changed through a subscript', "rows = [['new']]\nrows[0].append(TAINTED)\npick = rows[0][-1]"],
  ['a nested item written through a subscript', "rows = [['new']]\nrows[0][0] = TAINTED\npick = rows[0][0]"],
  ['a nested list changed through the loop variable', "rows = [['new']]\nfor row in rows:\n    row[0] = TAINTED\npick = rows[0][0]"],
  ['a nested list changed through another name', "rows = [['new']]\nfirst = rows[0]\nfirst.append(TAINTED)\npick = rows[0][1]"],
  ["a dict's list changed through values()", "groups = {'a': ['new']}\nfor g in groups.values():\n    g.append(TAINTED)\npick = groups['a'][-1]"],
  ['a nested list changed through enumerate', "rows = [['new']]\nfor i, r in enumerate(rows):\n    r[0] = TAINTED\npick = rows[0][0]"],
  ['a nested list changed through get()', "groups = {'a': ['new']}\ngroups.get('a').append(TAINTED)\npick = groups['a'][-1]"],
];
const JAVASCRIPT: Array<[string, string]> = [
  ['reverse', "const tags = ['new', TAINTED];\ntags.reverse();\nconst pick = tags[0];"],
  ['sort', "const tags = ['zzz', TAINTED];\ntags.sort();\nconst pick = tags[0];"],
  ['shift', "const tags = ['new', TAINTED];\ntags.shift();\nconst pick = tags[0];"],
  ['splice', "const tags = ['new', 'sale'];\ntags.splice(0, 1, TAINTED);\nconst pick = tags[0];"],
  ['fill', "const tags = ['new'];\ntags.fill(TAINTED);\nconst pick = tags[0];"],
  ["a Set's add", "const tags = new Set(['new']);\ntags.add(TAINTED);\nconst pick = [...tags].join(',');"],
  ['an index not known', "const tags = ['new', 'sale'];\ntags[req.body.i] = TAINTED;\nconst pick = tags[0];"],
  ['a key not known', "const o = { tag: 'new' };\no[req.body.k] = TAINTED;\nconst pick = o.tag;"],
  ['a callback writing by index', "const tags = ['new'];\n[TAINTED].forEach((x, i) => { tags[i] = x; });\nconst pick = tags[0];"],
];

t.test('Python: a method that moves or adds items keeps what they carry', async (t) => {
  for (const [name, body] of PYTHON) {
    const bad = await analyzePython(py(`${body.replace('TAINTED', "request.form.get('t', '')")}\n${PY_SINK}`));
    t.ok(blocks(bad.findings), `${name}: the request value reaches the SQL (${blocking(bad.findings).join(', ')})`);
  }
  for (const [name, body] of PYTHON.slice(0, 4)) {
    const ok = await analyzePython(py(`${body.replace('TAINTED', "'sale'")}\n${PY_SINK}`));
    t.same(blocking(ok.findings), [], `${name}: constants only, still admitted`);
  }
  // a tuple cannot change: tuples of constants in a list stay known
  const pairs = await analyzePython(py(`for pick, colour in [('new', 'red'), ('sale', 'blue')]:\n    ${PY_SINK}`));
  t.same(blocking(pairs.findings), [], 'tuples of constants in a list, iterated: admitted');
});

t.test('Python: what a same-file function or a reflective call changes out of sight is not read as before', async (t) => {
  const mod = (pre: string, body: string): string => `from flask import Flask, request\nimport sqlite3\napp = Flask(__name__)\n${pre}@app.route('/s', methods=['POST'])\ndef handler():\n    db = sqlite3.connect('shop.db')\n${body.replace(/^/gm, '    ')}\n    ${PY_SINK}\n    return 'ok'\n`;
  const cases: Array<[string, string, string]> = [
    ['a global rebound', "TAG = 'new'\ndef remember(t):\n    global TAG\n    TAG = t\n", "remember(request.form.get('t', ''))\npick = TAG"],
    ['a module dict written', "STATE = {'tag': 'new'}\ndef remember(t):\n    STATE['tag'] = t\n", "remember(request.form.get('t', ''))\npick = STATE['tag']"],
    ['a module list appended to', "SEEN = ['new']\ndef remember(t):\n    SEEN.append(t)\n", "remember(request.form.get('t', ''))\npick = SEEN[-1]"],
    ['setattr', 'class Box:\n    pass\n', "b = Box()\nb.tag = 'new'\nsetattr(b, 'tag', request.form.get('t', ''))\npick = b.tag"],
    ['vars()', 'class Box:\n    pass\n', "b = Box()\nb.tag = 'new'\nvars(b)['tag'] = request.form.get('t', '')\npick = b.tag"],
  ];
  for (const [name, pre, body] of cases) {
    const a = await analyzePython(mod(pre, body));
    t.ok(blocks(a.findings), `${name}: not admitted (${blocking(a.findings).join(', ')})`);
  }
  const reader = await analyzePython(mod("TAG = 'new'\ndef current():\n    return TAG\n", "current()\npick = TAG"));
  t.same(blocking(reader.findings), [], 'a function that only reads the global changes nothing');
});

t.test('JavaScript: a method that moves or adds items keeps what they carry', async (t) => {
  for (const [name, body] of JAVASCRIPT) {
    const bad = analyzeJavaScript(js(`${body.replace('TAINTED', 'req.body.t')}\n${JS_SINK}`));
    t.ok(blocks(bad.findings), `${name}: the request value reaches the SQL (${blocking(bad.findings).join(', ')})`);
  }
  for (const [name, body] of JAVASCRIPT.slice(0, 5)) {
    const ok = analyzeJavaScript(js(`${body.replace('TAINTED', "'sale'")}\n${JS_SINK}`));
    t.same(blocking(ok.findings), [], `${name}: constants only, still admitted`);
  }
});

t.test('a dict changed by a method not modelled keeps only what it carries (1.14.0)', async (t) => {
  const a = await analyzePython("from flask import Flask, request\nimport os\napp = Flask(__name__)\n@app.route('/r')\ndef r():\n    d = {'c': 'ls'}\n    d.__setitem__('c', request.args.get('x', ''))\n    os.system(d['c'])\n    return 'ok'\n");
  t.ok(a.findings.some((f) => f.rule_id === 'python.flow.cmdi' && isBlocking(f)), '__setitem__ through the method');
});
