import t, { type Test } from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * Helper classes of the same file (rules 1.14.0): a plain class's `__init__` and methods run on the
 * instance they are called on, and its attributes are read back. Each admission has hostile near
 * misses — a patched method, a subclass, an alias, a second path through a container, a helper that
 * changes a module-level instance, reflection — that must still block. Handlers written for these tests.
 */
const HEAD = 'from flask import Flask, request\nimport os\napp = Flask(__name__)\n';
const CMD = `class Cmd:
    """builds a listing command"""
    PREFIX = 'ls '
    def __init__(self, flag):
        self.flag = flag
        self.extra = '-l'
    def text(self):
        return 'ls ' + self.extra
    def raw(self):
        return 'ls ' + self.flag
    def set_extra(self, v):
        self.extra = v
    @staticmethod
    def quiet(x):
        return '-q'
`;
const file = (classes: string, body: string): string => `${HEAD}${classes}\n@app.route('/r', methods=['POST'])\ndef handler():\n${body.replace(/^/gm, '    ')}\n    return 'done'\n`;
const READ = "v = request.form.get('v', '')";

const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => `${f.rule_id}@${f.line}`);
async function admits(t: Test, name: string, classes: string, body: string): Promise<void> {
  const a = await analyzePython(file(classes, body));
  t.ok(a.parseOk, `${name}: parses`);
  t.same(blocking(a.findings), [], `${name}: nothing blocks`);
}
async function blocks(t: Test, name: string, classes: string, body: string): Promise<void> {
  const a = await analyzePython(file(classes, body));
  t.ok(blocking(a.findings).length > 0, `${name}: blocks`);
}
async function flows(t: Test, name: string, classes: string, body: string): Promise<void> {
  const a = await analyzePython(file(classes, body));
  t.ok(a.findings.some((f) => f.rule_id === 'python.flow.cmdi' && isBlocking(f)), `${name}: cmdi flow (${blocking(a.findings).join(', ')})`);
}

t.test('a plain class of the file is interpreted on its instances', async (t) => {
  await admits(t, 'a method that ignores the request value', CMD, `${READ}\nc = Cmd(v)\nos.system(c.text())`);
  await admits(t, 'an attribute __init__ set to a constant', CMD, `${READ}\nc = Cmd(v)\nos.system('ls ' + c.extra)`);
  await admits(t, 'a static method', CMD, `${READ}\nos.system('ls ' + Cmd.quiet(v) + Cmd('x').quiet(v))`);
  await admits(t, 'a method that sets a constant', CMD, `${READ}\nc = Cmd('x')\nc.extra = v\nc.set_extra('-a')\nos.system(c.text())`);
  await flows(t, 'a method that returns the request value', CMD, `${READ}\nc = Cmd(v)\nos.system(c.raw())`);
  await flows(t, 'an attribute set from the request', CMD, `${READ}\nc = Cmd(v)\nos.system(c.flag)`);
  await flows(t, 'a method that stores the request value', CMD, `${READ}\nc = Cmd('x')\nc.set_extra(v)\nos.system(c.text())`);
  await flows(t, 'an attribute written from outside', CMD, `${READ}\nc = Cmd('x')\nc.extra = v\nos.system(c.text())`);
  await flows(t, 'the instance as text', CMD, `${READ}\nc = Cmd(v)\nos.system('echo %s' % (c,))`);
  await flows(t, 'a method that raised half way, in a try', `class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    def put(self, v):\n        self.cmd = v\n        int(v)\n        self.cmd = 'ls'\n`, `${READ}\nb = Box()\ntry:\n    b.put(v)\nexcept ValueError:\n    os.system(b.cmd)`);
  await flows(t, 'a list attribute appended to by a method', `class Bag:\n    def __init__(self):\n        self.items = ['ls']\n    def add(self, v):\n        self.items.append(v)\n`, `${READ}\nb = Bag()\nb.add(v)\nfor x in b.items:\n    os.system(x)`);
  await flows(t, 'an instance kept in another', `class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    def put(self, v):\n        self.cmd = v\nclass Holder:\n    def __init__(self):\n        self.box = Box()\n    def fill(self, v):\n        self.box.put(v)\n`, `${READ}\nh = Holder()\nh.fill(v)\nos.system(h.box.cmd)`);
});

t.test('an attribute holding a callable is what a call through it runs', async (t) => {
  const R = "class Runner:\n    def __init__(self):\n        self.reader = open\n    def go(self, p):\n        self.reader(p).close()\n        return 'read'\n";
  const a = await analyzePython(file(R, `${READ}\nr = Runner()\nr.go('/srv/' + v)`));
  t.ok(a.findings.some((f) => f.rule_id === 'python.flow.pathtraver' && isBlocking(f)), 'through a method');
  const b = await analyzePython(file(R, `${READ}\nRunner().reader('/srv/' + v).close()`));
  t.ok(b.findings.some((f) => f.rule_id === 'python.flow.pathtraver' && isBlocking(f)), 'from outside');
});

t.test('what may change an instance out of sight leaves it undecided', async (t) => {
  const BOX = "class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    def put(self, v):\n        self.cmd = v\n";
  await blocks(t, 'a second name', BOX, `${READ}\nb = Box()\nalias = b\nalias.cmd = v\nos.system(b.cmd)`);
  await blocks(t, 'a list holding it', BOX, `${READ}\nb = Box()\nkept = [b]\nkept[0].cmd = v\nos.system(b.cmd)`);
  await blocks(t, 'handed to another function', BOX, `${READ}\nb = Box()\nchange(b, v)\nos.system(b.cmd)`);
  await blocks(t, 'a method patched on the class', BOX, `${READ}\nBox.put = print\nb = Box()\nos.system(b.cmd)`);
  await blocks(t, 'a subclass', `${BOX}class Loud(Box):\n    pass\n`, `${READ}\nb = Box()\nos.system(b.cmd)`);
  await blocks(t, 'reflection in the file', BOX, `${READ}\nb = Box()\ntype(b).__init__ = print\nos.system(b.cmd)`);
  await blocks(t, 'a property', "class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    @property\n    def shown(self):\n        return self.cmd\n", `b = Box()\nos.system(b.shown)`);
  await blocks(t, 'a special method', "class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    def __getattr__(self, k):\n        return request.form.get(k, '')\n", `b = Box()\nos.system(b.other)`);
  await blocks(t, 'an attribute no code set', BOX, `b = Box()\nos.system(b.other)`);
  await blocks(t, 'a base class', "class Box(dict):\n    def __init__(self):\n        self.cmd = 'ls'\n", `b = Box()\nos.system(b.cmd)`);
  await blocks(t, 'a method that returns self', "class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    def me(self):\n        return self\n", `${READ}\nb = Box()\nother = b.me()\nother.cmd = v\nos.system(b.cmd)`);
  await blocks(t, '__init__ that registers self', "SEEN = []\nclass Box:\n    def __init__(self):\n        self.cmd = 'ls'\n        SEEN.append(self)\n", `${READ}\nb = Box()\nSEEN[0].cmd = v\nos.system(b.cmd)`);
  const GLOBAL = `${BOX}BOX = Box()\ndef fill(v):\n    BOX.put(v)\n`;
  await blocks(t, 'a module-level instance a helper changes', GLOBAL, `${READ}\nfill(v)\nos.system(BOX.cmd)`);
});

t.test('lambdas, partials, generators and deques', async (t) => {
  await admits(t, 'a lambda bound to a name', '', `${READ}\nquiet = lambda s: '-q'\nos.system('ls ' + quiet(v))`);
  await flows(t, 'a lambda that returns its argument', '', `${READ}\nsame = lambda s: s.strip()\nos.system('ls ' + same(v))`);
  await admits(t, 'map with a lambda', '', "vals = request.form.getlist('v')\nfor x in map(lambda s: '-l', vals):\n    os.system('ls ' + x)");
  await flows(t, 'map with a lambda that keeps it', '', "vals = request.form.getlist('v')\nfor x in map(lambda s: s.upper(), vals):\n    os.system('ls ' + x)");
  await flows(t, 'a sink inside a sort key', '', "vals = request.form.getlist('v')\nvals = sorted(vals, key=lambda s: os.system(s))");
  await flows(t, 'a lambda other code runs', '', "import threading\np = request.form.get('p', '')\nthreading.Thread(target=lambda: os.system(p)).start()");
  await admits(t, 'functools.partial of a constant builder', 'import functools\ndef build(pre, x):\n    return pre + \'-l\'\n', `${READ}\nrun = functools.partial(build, 'ls ')\nos.system(run(v))`);
  await flows(t, 'functools.partial that keeps it', 'import functools\ndef build(pre, x):\n    return pre + x\n', `${READ}\nrun = functools.partial(build, 'ls ')\nos.system(run(v))`);
  await flows(t, 'a generator of this file', 'def each(v):\n    yield v\n', `${READ}\nfor x in each(v):\n    os.system(x)`);
  await admits(t, 'a deque emptied from the right', 'from collections import deque\n', `${READ}\nq = deque()\nq.appendleft(v)\nq.append('ls')\nos.system(q.pop())`);
  await flows(t, 'a deque emptied from the left', 'import collections\n', `${READ}\nq = collections.deque(['ls'])\nq.appendleft(v)\nos.system(q.popleft())`);
  await flows(t, 'a deque with maxlen', 'from collections import deque\n', `${READ}\nq = deque(['ls'], maxlen=1)\nq.append(v)\nos.system(q[0])`);
  await flows(t, 'a rotated deque', 'from collections import deque\n', `${READ}\nq = deque(['ls', v])\nq.rotate(1)\nos.system(q[1])`);
});

t.test('a generator given as a call\'s only argument is one argument', async (t) => {
  const a = await analyzePython(`${HEAD}import html\n@app.route('/r')\ndef r():\n    vals = request.args.getlist('v')\n    return ','.join(html.escape(x) for x in vals)\n`);
  t.same(blocking(a.findings), [], 'escaped items: nothing blocks');
  const b = await analyzePython(`${HEAD}@app.route('/r')\ndef r():\n    vals = request.args.getlist('v')\n    return ','.join(x.strip() for x in vals)\n`);
  t.ok(b.findings.some((f) => f.rule_id === 'python.flow.xss' && isBlocking(f)), 'raw items: an xss flow');
});

t.test('a container of the caller a function writes into is read back, with what an exception left in it', async (t) => {
  const SET = "def put(box, v):\n    box[0] = v\n";
  await admits(t, 'a closure that stores a constant', '', `${READ}\nbox = [v]\ndef reset():\n    box[0] = 'ls'\nreset()\nos.system(box[0])`);
  await flows(t, 'a closure that stores the request value', '', `${READ}\nbox = ['ls']\ndef keep():\n    box[0] = v\nkeep()\nos.system(box[0])`);
  await flows(t, 'a closure that raised half way', '', `${READ}\nbox = ['ls']\ndef keep():\n    box[0] = v\n    int(v)\n    box[0] = 'ls'\ntry:\n    keep()\nexcept ValueError:\n    os.system(box[0])`);
  await flows(t, 'raised through another function', 'STATE = {\'c\': \'ls\'}\ndef keep(v):\n    STATE[\'c\'] = v\n    int(v)\n    STATE[\'c\'] = \'ls\'\ndef outer(v):\n    keep(v)\n', `${READ}\ntry:\n    outer(v)\nexcept ValueError:\n    os.system(STATE['c'])`);
  await blocks(t, 'a list handed as an argument', SET, `${READ}\nbox = ['ls']\nput(box, v)\nos.system(box[0])`);
  await flows(t, 'a generator read with next()', 'def one(v):\n    yield v\n', `${READ}\nos.system(next(one(v), 'ls'))`);
});

t.test('state one handler writes is of unknown origin for the others (it outlives the request)', async (t) => {
  const two = (state: string, write: string, read: string): string => `from flask import Flask, request\nimport os\napp = Flask(__name__)\n${state}\n@app.route('/set')\ndef set_():\n    ${write}\n    return 'ok'\n@app.route('/run')\ndef run():\n    os.system(${read})\n    return 'ok'\n`;
  const stored = async (name: string, code: string): Promise<void> => {
    const a = await analyzePython(code);
    t.ok(blocking(a.findings).length > 0, `${name}: blocks (${a.findings.map((f) => `${f.rule_id}:${f.severity}`).join(', ')})`);
  };
  await stored('a module dict', two("STATE = {'c': 'ls'}", "STATE['c'] = request.args.get('c', '')", "STATE['c']"));
  await stored('a module list', two("SEEN = ['ls']", "SEEN.append(request.args.get('c', ''))", 'SEEN[-1]'));
  await stored('a module instance', two("class Box:\n    def __init__(self):\n        self.cmd = 'ls'\n    def put(self, v):\n        self.cmd = v\nBOX = Box()", "BOX.put(request.args.get('c', ''))", 'BOX.cmd'));
  const nested = "from flask import request\nimport os\ndef init(app):\n    cache = {'c': 'ls'}\n    @app.route('/set')\n    def set_():\n        cache['c'] = request.args.get('c', '')\n        return 'ok'\n    @app.route('/run')\n    def run():\n        os.system(cache['c'])\n        return 'ok'\n";
  await stored('a closure dict shared by nested handlers', nested);
  const a = await analyzePython(two("STATE = {'c': 'ls'}", "print(STATE['c'])", "STATE['c']"));
  t.same(blocking(a.findings), [], 'state only read stays known');
});
