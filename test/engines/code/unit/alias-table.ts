import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeCode, initPython } from '../../../../plugins/engines/code/analyze.js';
import type { Language } from '../../../../plugins/engines/code/types.js';
import { message, startA2A, TEST_API_KEY } from '../../../helpers/a2a.js';

/**
 * Issue 12 item 4: a module alias or re-binding never hides a dangerous call. Every row names the
 * rule the aliased call must raise; each row was admitted (or not raised) by the resolver before
 * the fix or pins a form the fix must keep. The plain spelling of each call is in the rule tests.
 */
type Row = [name: string, language: Language, code: string, rule: string];

const PYTHON: Row[] = [
  ['import x as y (the probe line)', 'python', 'import subprocess as sp\nsp.run(["id"])\n', 'python.process.host_recon'],
  ['import x as y, shell', 'python', 'import subprocess as sp\nsp.run(cmd, shell=True)\n', 'python.process.shell_injection'],
  ['from os import system as s', 'python', 'from os import system as s\ns(cmd)\n', 'python.process.shell_injection'],
  ['import os.path as p reaches os', 'python', 'import os.path as p\np.os.system(cmd)\n', 'python.process.shell_injection'],
  ['posixpath re-exports os', 'python', 'import posixpath\nposixpath.os.popen(cmd)\n', 'python.process.shell_injection'],
  ['m = __import__("subprocess")', 'python', 'm = __import__("subprocess")\nm.call(cmd, shell=True)\n', 'python.process.shell_injection'],
  ['importlib.import_module("os").system', 'python', 'import importlib\nimportlib.import_module("os").system(cmd)\n', 'python.process.shell_injection'],
  ['chain through assignments', 'python', 'import os\nx = os\ny = x.system\ny(cmd)\n', 'python.process.shell_injection'],
  ['attribute assigned in __init__', 'python', 'import os\nclass R:\n    def __init__(self):\n        self.sh = os.system\n    def go(self, c):\n        self.sh(c)\n', 'python.process.shell_injection'],
  ['module held in a class body', 'python', 'import os\nclass C:\n    m = os\nC.m.system(cmd)\n', 'python.process.shell_injection'],
  ['module held in a dict', 'python', 'import os\nd = {"s": os}\nd["s"].system(cmd)\n', 'python.process.shell_injection'],
  ['cPickle', 'python', 'import cPickle as cp\ncp.loads(blob)\n', 'python.deserialization.pickle'],
  ['dill alias', 'python', 'import dill as d\nd.load(f)\n', 'python.deserialization.pickle'],
  ['jsonpickle', 'python', 'import jsonpickle\njsonpickle.decode(s)\n', 'python.deserialization.pickle'],
  ['shelve', 'python', 'import shelve\ndb = shelve.open(path)\n', 'python.deserialization.pickle'],
  ['marshal', 'python', 'import marshal\nmarshal.load(f)\n', 'python.deserialization.marshal'],
  ['pandas.read_pickle via pd', 'python', 'import pandas as pd\ndf = pd.read_pickle(path)\n', 'python.deserialization.pickle'],
  ['torch.load without weights_only', 'python', 'import torch as T\nm = T.load(path)\n', 'python.deserialization.pickle'],
  ['torch.load weights_only=False', 'python', 'import torch\nm = torch.load(path, weights_only=False)\n', 'python.deserialization.pickle'],
  ['numpy allow_pickle', 'python', 'import numpy as np\nnp.load(path, allow_pickle=True)\n', 'python.deserialization.pickle'],
  ['joblib', 'python', 'from joblib import load as jl\njl(path)\n', 'python.deserialization.pickle'],
  ['yaml.load without loader via alias', 'python', 'import yaml as y\ny.load(text)\n', 'python.deserialization.yaml'],
  ['yaml.load with the full Loader', 'python', 'from yaml import load, Loader\nload(text, Loader=Loader)\n', 'python.deserialization.yaml'],
  ['os.startfile', 'python', 'import os as o\no.startfile(path)\n', 'python.process.startfile'],
  ['popen2 module', 'python', 'import popen2\npopen2.popen3(cmd)\n', 'python.process.shell_injection'],
  ['commands module', 'python', 'import commands as c\nc.getstatusoutput(cmd)\n', 'python.process.shell_injection'],
];

const JAVASCRIPT: Row[] = [
  ['const cp = require()', 'javascript', 'const cp = require("child_process");\ncp.exec(cmd);\n', 'javascript.process.shell_injection'],
  ['destructuring with rename', 'javascript', 'const { exec: run } = require("child_process");\nrun(cmd);\n', 'javascript.process.shell_injection'],
  ['destructuring a module alias', 'javascript', 'const cp = require("child_process");\nconst { execSync } = cp;\nexecSync(cmd);\n', 'javascript.process.shell_injection'],
  ['require aliased', 'javascript', 'const r = require;\nr("child_process").exec(cmd);\n', 'javascript.process.shell_injection'],
  ['dynamic import()', 'javascript', 'import("child_process").then((m) => m.exec(cmd));\n', 'javascript.process.shell_injection'],
  ['await import()', 'javascript', 'const { exec } = await import("node:child_process");\nexec(cmd);\n', 'javascript.process.shell_injection'],
  ['import * as', 'javascript', 'import * as cp from "child_process";\ncp.execSync(cmd);\n', 'javascript.process.shell_injection'],
  ['module held in an object literal', 'javascript', 'const o = { cp: require("child_process") };\no.cp.exec(cmd);\n', 'javascript.process.shell_injection'],
  ['module held on this', 'javascript', 'class R { constructor() { this.cp = require("child_process"); } go(c) { this.cp.exec(c); } }\n', 'javascript.process.shell_injection'],
  ['module held in a class field', 'javascript', 'class R { cp = require("child_process"); go(c) { this.cp.exec(c); } }\n', 'javascript.process.shell_injection'],
  ['method re-bound', 'javascript', 'const cp = require("child_process");\nconst e = cp.exec;\ne(cmd);\n', 'javascript.process.shell_injection'],
  ['recon through spawnSync alias', 'javascript', 'const { spawnSync: s } = require("child_process");\ns("whoami");\n', 'javascript.process.host_recon'],
];

// the grammar loaded before the first case (a top-level await: this file shares a process, see unit.test.ts)
await initPython();

t.test('alias table: every aliased dangerous call raises its rule and blocks', async (t) => {
  for (const [name, language, code, rule] of [...PYTHON, ...JAVASCRIPT]) {
    const a = await analyzeCode(code, language);
    t.ok(a.parseOk, `${name}: parses`);
    const hit = a.findings.find((f) => f.rule_id === rule);
    t.ok(hit, `${name}: ${rule}`);
    t.ok(hit && isBlocking(hit), `${name}: blocks`);
  }
});

t.test('the safe spellings stay admitted', async (t) => {
  const safe: Array<[string, Language, string]> = [
    ['torch.load weights_only=True', 'python', 'import torch\nm = torch.load(path, weights_only=True)\n'],
    ['numpy.load default', 'python', 'import numpy as np\nnp.load(path)\n'],
    ['yaml.safe_load', 'python', 'import yaml\nyaml.safe_load(text)\n'],
    ['attribute named like a module elsewhere', 'python', 'class P:\n    def __init__(self):\n        self.os = "linux"\n    def name(self):\n        return self.os.upper()\n'],
    ['regex exec next to a destructured exec', 'javascript', 'const { exec } = require("child_process");\nconst m = /a/.exec(s);\n'],
    ['fixed argv, ordinary program', 'python', 'import subprocess as sp\nsp.run(["git", "rev-parse", "HEAD"])\n'],
  ];
  for (const [name, language, code] of safe) {
    const a = await analyzeCode(code, language);
    t.ok(a.parseOk, `${name}: parses`);
    t.same(a.findings.filter(isBlocking), [], name);
  }
});

t.test('code CPython rejects is never answered safe (tree-sitter accepts it)', async (t) => {
  const rejected: Array<[string, string]> = [
    ['def whose body is only a comment', 'def f():\n    # nothing yet\n'],
    ['class whose body is only a comment', 'class C:\n    # nothing\nx = 1\n'],
    ['unexpected indent at module level', '  x = 1\n'],
    ['unindent to no outer level', 'if x:\n        a = 1\n    b = 2\n'],
    ['tabs and spaces inconsistent', 'if x:\n\ta = 1\n        b = 2\n'],
    ['misaligned else', 'if x:\n    a = 1\n  else:\n    a = 2\n'],
    ['return outside function', 'return 1\n'],
    ['yield in a class body', 'class C:\n    yield 1\n'],
    ['break outside loop', 'if x:\n    break\n'],
    ['break in a loop else', 'for i in y:\n    pass\nelse:\n    break\n'],
    ['nonlocal at module level', 'nonlocal x\n'],
  ];
  for (const [name, code] of rejected) {
    const a = await analyzeCode(code, 'python');
    t.equal(a.parseOk, false, name);
    t.ok(a.parseError, `${name}: says why`);
  }
  const accepted = 'x = lambda: (yield)\nif a: b = 1; c = 2\nwhile 1:\n    try:\n        break\n    finally:\n        pass\nclass D:\n    def m(self):\n        return 1\n';
  t.equal((await analyzeCode(accepted, 'python')).parseOk, true, 'valid Python still parses');
});

t.test('the A2A code guard sees the same aliases (/a2a/intercept)', async (t) => {
  const s = await startA2A({}, [], { workers: { threads: 1, task_timeout_ms: 10_000 } });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/a2a/intercept', {
    body: message({ payload_type: 'code_execution', payload: { code: 'import pandas as pd\nframe = pd.read_pickle(path)\n' } }),
    apiKey: TEST_API_KEY,
  });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'blocked', 'an aliased deserialisation sink blocks the message');
  t.equal(r.body.engine_used, 'code_guard');
});
