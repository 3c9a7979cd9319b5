import t from 'tap';
import { corpusLines } from '../../../bench/harness.js';
import type { PyNode } from '../../../plugins/engines/code/python/parser.js';

/**
 * The flow analysis runs only where it can see a sink (plugins/engines/code/python/flow/prefilter.ts):
 * not at all in a module that names none, and only for the entry points whose code reaches a sink
 * name. With PROOFGATE_FLOW_FILTER_CHECK=1 every analysis also runs without the filters and throws
 * when a finding differs; the suite sets it for every test file (test/run.sh), this file for itself.
 * Below: modules written to hide a sink from a word-level filter (aliases, containers, attributes,
 * closures, returns, reflection), each of which must keep its flow finding, and the corpus.
 */
process.env.PROOFGATE_FLOW_FILTER_CHECK = '1';
const { analyzePython } = await import('../../../plugins/engines/code/analyze.js');
const { SinkNames: Names, mayNameSink } = await import('../../../plugins/engines/code/python/flow/prefilter.js');
const { ModuleIndex } = await import('../../../plugins/engines/code/python/flow/module-index.js');
const { Resolver } = await import('../../../plugins/engines/code/python/resolve.js');
/** the filter of a parsed module */
class SinkNames extends Names {
  constructor(nodes: PyNode[]) {
    super(new ModuleIndex(nodes));
  }
}
const { initPython, parsePythonSync } = await import('../../../plugins/engines/code/python/parser.js');

const HIDDEN: Array<[name: string, src: string]> = [
  ['module alias the resolver maps', 'import posix\ndef f(c):\n    posix.system(c)\n'],
  ['imported under another name', 'from os import system as s\ndef f(c):\n    s(c)\n'],
  ['star import', 'from os import *\ndef f(c):\n    system(c)\n'],
  ['bound to a module name', 'import os\nrun = os.system\ndef f(c):\n    run(c)\n'],
  ['in a module dict', "import os\nHANDLERS = {'x': os.system}\ndef f(c):\n    HANDLERS['x'](c)\n"],
  ['appended to a module list', 'import os\ncmds = []\ncmds.append(os.system)\ndef f(c):\n    cmds[0](c)\n'],
  ['an instance attribute', 'import os\nclass R:\n    def __init__(self):\n        self.reader = os.system\n    def go(self, c):\n        self.reader(c)\ndef f(c):\n    R().go(c)\n'],
  ['returned by a function', 'import os\ndef get():\n    return os.system\ndef f(c):\n    get()(c)\n'],
  ['closed over', 'import os\ndef outer():\n    fn = os.system\n    def inner(c):\n        fn(c)\n    return inner\n'],
  ['a loop variable left behind', 'import os\nfor fn in [os.system]:\n    pass\ndef f(c):\n    fn(c)\n'],
  ['a default', 'import os\ndef f(c, fn=os.system):\n    fn(c)\n'],
  ['a walrus', 'import os\nif (fn := os.system):\n    pass\ndef f(c):\n    fn(c)\n'],
  ['set as a global by another function', 'import os\ndef setup():\n    global fn\n    fn = os.system\ndef f(c):\n    fn(c)\n'],
  ['imported as a global by another function', 'def setup():\n    global sp\n    import subprocess as sp\ndef f(c):\n    sp.call(c, shell=True)\n'],
  ['inherited method', 'import os\nclass A:\n    def run(self, c):\n        os.system(c)\nclass B(A):\n    pass\ndef f(c):\n    B().run(c)\n'],
  ['an attribute of a module object', 'import os\nclass Cfg:\n    pass\ncfg = Cfg()\ncfg.handler = os.system\ndef f(c):\n    cfg.handler(c)\n'],
  ['a partial', 'import os, functools\nrun = functools.partial(os.system)\ndef f(c):\n    run(c)\n'],
  ['a lambda', 'import os\nrun = lambda c: os.system(c)\ndef f(c):\n    run(c)\n'],
  ['a method name of a receiver given as a parameter', 'def f(cur, q):\n    run = cur.execute\n    run("SELECT " + q)\n'],
  ['through getattr', "import os\ndef f(c):\n    getattr(os, 'sys' + 'tem')(c)\n"],
  ['getattr at module level', "import os\nfn = getattr(os, 'sys' + 'tem')\ndef f(c):\n    fn(c)\n"],
  ['__import__ in a helper', "def mod():\n    return __import__('o' + 's')\ndef f(c):\n    mod().system(c)\n"],
  ['sys.modules', "import sys\ndef f(c):\n    sys.modules['o' + 's'].system(c)\n"],
  ['setattr on a module object', "import os\nclass Cfg:\n    pass\ncfg = Cfg()\nsetattr(cfg, 'h' + 'andler', os.system)\ndef f(c):\n    cfg.handler(c)\n"],
  ['through globals()', "import os\ndef f(c):\n    globals()['o' + 's'].system(c)\n"],
  ['through __builtins__', 'def f(c):\n    __builtins__.eval(c)\n'],
  ['fullwidth name (NFKC)', 'def f(c):\n    \uff45\uff56\uff41\uff4c(c)\n'],
  ['match capture', "import os\ndef f(c):\n    match {'r': os.system}:\n        case {'r': fn}:\n            fn(c)\n"],
  ['a route decorator opened by a bracket', "from flask import Flask, request\napp = Flask(__name__)\n@(app\n  .route)('/')\ndef home():\n    return request.args['q']\n"],
  ['a route decorator continued past the line end', "from flask import Flask, request\napp = Flask(__name__)\n@app.\\\nroute('/')\ndef home():\n    return request.args['q']\n"],
  ['a special name in capitals', "def f(c):\n    return ().__CLASS__, eval(c)\n"],
  ['a parameter named as a sink, called', 'import pickle\ndef f(c, load=pickle.load):\n    load(c)\n'],
  ['a function named as a sink, importing it', 'def load(c):\n    from pickle import load\n    return load(c)\n'],
  ['a sink module imported under a harmless name', 'import marshal as json\ndef f(c):\n    json.loads(c)\n'],
  ['a harmless module name rebound to a sink module', 'import json, marshal\ndef f(c):\n    json = marshal\n    json.loads(c)\n'],
  ['a harmless module name as a parameter', 'import json, marshal\ndef f(c, json=marshal):\n    json.loads(c)\n'],
  ["a harmless module's attribute replaced", 'import json, marshal\njson.loads = marshal.loads\ndef f(c):\n    json.loads(c)\n'],
  ['a harmless module name rebound by another function', 'import json, marshal\ndef g():\n    global json\n    json = marshal\ndef f(c):\n    json.loads(c)\n'],
  ['the builtins module under another name, its eval called as an attribute', 'import builtins\nb = builtins\ndef f(c):\n    b.eval(c)\n'],
  ['the builtins module imported under an alias', 'import builtins as bi\ndef f(c):\n    bi.exec(c)\n'],
  ['a builtin kept as a class attribute', 'class K:\n    run = eval\ndef f(c):\n    K.run(c)\n'],
  ['a builtin stored on an instance under its own name', 'class K:\n    def __init__(self):\n        self.eval = eval\ndef f(c):\n    K().eval(c)\n'],
  ['decorator that returns the sink', 'import os\ndef deco(g):\n    return lambda c: os.system(c)\n@deco\ndef f(c):\n    pass\nf(input())\n'],
];

const { isBlocking } = await import('../../../plugins/engines/code/index.js');
/** the cases the interpreter itself follows to the sink (the others block by the presence rules) */
const FLOW = new Set(HIDDEN.map(([name]) => name).filter((n) => !['a default', 'a partial', 'a method name of a receiver given as a parameter', 'through getattr', 'getattr at module level', '__import__ in a helper', 'sys.modules', 'setattr on a module object', 'through globals()', 'match capture', 'a harmless module name as a parameter', "a harmless module's attribute replaced", 'a parameter named as a sink, called', 'a function named as a sink, importing it', 'a builtin kept as a class attribute'].includes(n)));

await initPython();

t.test('a sink hidden from the names of its entry point: the same findings with and without the filters, blocked', async (t) => {
  for (const [name, src] of HIDDEN) {
    const a = await analyzePython(src);
    t.ok(a.parseOk, `${name}: parses`);
    // the check mode above throws when the filtered and unfiltered analyses differ
    t.ok(a.findings.some(isBlocking), `${name}: blocked`);
    if (FLOW.has(name)) t.ok(a.findings.some((f) => f.rule_id?.includes('.flow.')), `${name}: a flow finding`);
  }
});

t.test('the filters skip what cannot see a sink', async (t) => {
  const utils = 'def mean(xs):\n    return sum(xs) / len(xs)\n\nimport json\ndef load(text):\n    return json.loads(text)\n';
  t.notOk(mayNameSink(utils), 'no word a sink needs: not even indexed');
  t.ok(mayNameSink(`${utils}class A:\n    def __init__(self):\n        self.x = ().__class__\n`), 'a special attribute');
  t.notOk(mayNameSink(`${utils}class A:\n    def __init__(self):\n        self.x = 1\n`), '__init__ is ordinary');
  t.ok(mayNameSink(`${utils}def g(x):\n    return \uff45\uff56\uff41\uff4c(x)\n`), 'text outside ASCII is always indexed (NFKC)');
  t.ok(mayNameSink('import posix\n'), 'a module alias');
  t.ok(mayNameSink('def view(request):\n    return 1\n'), "a Django view's request");
  t.notOk(new SinkNames(parsePythonSync(utils).nodes).anySink(), 'no sink name: the flow analysis does not run');
  const mixed = `${utils}import subprocess\ndef ping(host):\n    return subprocess.run('ping -c1 ' + host, shell=True)\n`;
  const nodes = parsePythonSync(mixed).nodes;
  const names = new SinkNames(nodes);
  t.ok(names.anySink());
  const defs = new Map(nodes.filter((n) => n.type === 'function_definition').map((d) => [d.children.find((c) => c.field === 'name')?.text, d]));
  t.notOk(names.relevant(defs.get('mean') as never), 'a function naming no sink is not run');
  t.notOk(names.relevant(defs.get('load') as never), 'json.loads is not pickle.loads');
  const withMarshal = parsePythonSync(`import marshal\n${utils}def m(b):\n    return marshal.loads(b)\n`);
  const resolved = new Names(new ModuleIndex(withMarshal.nodes), new Resolver(withMarshal.nodes));
  const load = withMarshal.nodes.find((n) => n.type === 'function_definition' && n.children.some((c) => c.field === 'name' && c.text === 'load'));
  t.notOk(resolved.relevant(load as never), 'with marshal imported too, json.loads is still json\'s: the resolver shows json is only ever the json module');
  t.ok(names.relevant(defs.get('ping') as never), 'the function with the shell runs');
  const pickled = parsePythonSync(`import pickle\n${utils}`).nodes;
  t.ok(new SinkNames(pickled).anySink(), 'with pickle imported, loads may be pickle.loads');
  const reflective = parsePythonSync(`${utils}def g(o, n):\n    return getattr(o, n)\n`).nodes;
  const r = new SinkNames(reflective);
  t.notOk(r.reflective, 'getattr reads by name');
  t.ok(r.anySink(), 'getattr may name a sink');
  const setter = parsePythonSync(`${utils}def g(o, n, v):\n    setattr(o, n, v)\n`).nodes;
  const writes = new SinkNames(setter);
  t.ok(writes.reflective && writes.relevant(setter.find((n) => n.type === 'function_definition') as never), 'setattr writes by name: nothing is filtered, not even mean()');
  const compiled = parsePythonSync(`import re\nEMAIL = re.compile(r'^a$')\ndef ok(s):\n    return bool(EMAIL.match(s)) and model.eval() and Image.open(s)\n`);
  t.notOk(new Names(new ModuleIndex(compiled.nodes), new Resolver(compiled.nodes)).anySink(), 're.compile, model.eval(), Image.open: an attribute is not the builtin of its name');
  const both = parsePythonSync(`import builtins\nb = builtins\nCODE = b.compile('1', '<s>', 'eval')\n`);
  t.ok(new Names(new ModuleIndex(both.nodes), new Resolver(both.nodes)).anySink(), 'with builtins imported and bound to a name, an attribute compile may be builtins.compile');
  const onlyRe = parsePythonSync(`import re, builtins\nEMAIL = re.compile(r'^a$')\n`);
  t.notOk(new Names(new ModuleIndex(onlyRe.nodes), new Resolver(onlyRe.nodes)).anySink(), 'but not where re is only ever the re module');
  const route = parsePythonSync("from flask import Flask\napp = Flask(__name__)\n@app.route('/')\ndef home():\n    return 'hi'\n").nodes;
  t.ok(new SinkNames(route).anySink(), 'a route handler returns a page: the analysis runs');
});

t.test('the corpus: the same findings with and without the filters', async (t) => {
  let n = 0;
  for (const line of corpusLines('code.jsonl')) {
    if (line.language !== 'python') continue;
    await analyzePython(line.code);
    n++;
  }
  t.equal(n, 90, 'every Python line analysed under the check');
});
