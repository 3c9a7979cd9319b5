import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * Python that runs a program, a file or arbitrary code through names the rules did not resolve, each
 * proven safe (VERIFIED, is_valid true, ADMIT) before: distutils' spawn; a file loaded and run as a
 * module through the import loader protocol (exec_module/load_module, imp.load_source), and
 * code.InteractiveConsole, whose push() runs source; a module's namespace dictionary read by a
 * computed name or enumerated (`vars(os).items()`, `os.__dict__.get(name)`, `inspect.getmembers(os)`);
 * breakpoint() and the debuggers behind it, which run whatever statement is typed at (or sent to) them.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['distutils.spawn.spawn of a shell', "from distutils.spawn import spawn\nspawn(['sh', '-c', cmd])\n", 'python.process.interpreter'],
  ['distutils.spawn.spawn dotted', "import distutils.spawn\ndistutils.spawn.spawn(['id'])\n", 'python.process.host_recon'],
  ['distutils.spawn.spawn computed', 'import distutils.spawn as ds\nds.spawn(argv)\n', 'python.process.dynamic_program'],
  ["setuptools' vendored spawn", "from setuptools._distutils.spawn import spawn\nspawn(['bash', 'x.sh'])\n", 'python.process.interpreter'],
  ['spec_from_file_location + exec_module', "import importlib.util\nspec = importlib.util.spec_from_file_location('m', '/tmp/x.py')\nm = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n", 'python.dangerous_call.code_object'],
  ['SourceFileLoader.load_module', "import importlib.machinery\nimportlib.machinery.SourceFileLoader('m', path).load_module()\n", 'python.dangerous_call.code_object'],
  ['SourceFileLoader.exec_module through a name', "from importlib.machinery import SourceFileLoader\nloader = SourceFileLoader('m', path)\nloader.exec_module(mod)\n", 'python.dangerous_call.code_object'],
  ['exec_module on a loader passed in', 'def run(loader, mod):\n    loader.exec_module(mod)\n', 'python.dangerous_call.code_object'],
  ['exec_module taken by getattr', "def run(loader, mod):\n    getattr(loader, 'exec_module')(mod)\n", 'python.dangerous_call.code_object'],
  ['SourcelessFileLoader (bytecode)', "from importlib.machinery import SourcelessFileLoader\nSourcelessFileLoader('m', 'x.pyc').load_module()\n", 'python.dangerous_call.code_object'],
  ['imp.load_source', "import imp\nimp.load_source('m', '/tmp/x.py')\n", 'python.dangerous_call.code_object'],
  ['zipimporter.load_module', "import zipimport\nzipimport.zipimporter('/tmp/x.zip').load_module('m')\n", 'python.dangerous_call.code_object'],
  ['find_module().load_module on an unknown finder', 'import pkgutil\nfor finder, name, _ in pkgutil.iter_modules([d]):\n    finder.find_module(name).load_module(name)\n', 'python.dangerous_call.code_object'],
  ['code.InteractiveConsole().push', 'import code\ncode.InteractiveConsole().push(src)\n', 'python.dangerous_call.code_object'],
  ['vars(os).items() filtered by a computed name', "import os\n[v for k, v in vars(os).items() if k == 'sys' + 'tem'][0]('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ['os.__dict__.values()', "import os\nfor f in os.__dict__.values():\n    if getattr(f, '__name__', '') == n:\n        f('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ["getattr(os, '__dict__')[name]", "import os\ngetattr(os, '__dict__')[name]('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ['vars(os).get(name)', "import os\nvars(os).get(name)('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ['vars(os) through a name', "import os\nns = vars(os)\nns[name]('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ['vars(os) copied', "import os\nd = dict(vars(os))\nd[name]('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ["sys.modules['os'].__dict__", "import sys\nsys.modules['os'].__dict__[name]('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ['vars(builtins).items()', "import builtins\n[v for k, v in vars(builtins).items() if k == 'ev' + 'al'][0]('1')\n", 'python.dangerous_call.namespace_dynamic'],
  ['inspect.getmembers(os)', "import inspect, os\ndict(inspect.getmembers(os))[name]('id')\n", 'python.dangerous_call.namespace_dynamic'],
  ['breakpoint()', 'def handler(req):\n    breakpoint()\n    return req\n', 'python.dangerous_call.debugger'],
  ['breakpoint() with arguments for PYTHONBREAKPOINT', "import os\nos.environ['PYTHONBREAKPOINT'] = 'os.system'\nbreakpoint('id')\n", 'python.dangerous_call.debugger'],
  ['pdb.set_trace', 'import pdb\npdb.set_trace()\n', 'python.dangerous_call.debugger'],
  ['pdb.Pdb() through a name', 'import pdb as p\ndbg = p.Pdb()\ndbg.set_trace()\n', 'python.dangerous_call.debugger'],
  ['remote_pdb on a socket', "from remote_pdb import RemotePdb\nRemotePdb('0.0.0.0', 4444).set_trace()\n", 'python.dangerous_call.debugger'],
  ['debugpy.listen', "import debugpy\ndebugpy.listen(('0.0.0.0', 5678))\n", 'python.dangerous_call.debugger'],
  ['distutils spawn as a thread target', 'import threading, distutils.spawn\nthreading.Thread(target=distutils.spawn.spawn, args=(argv,)).start()\n', 'python.dangerous_call.reference'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['vars() of a plain object', "class A:\n    pass\nprint(vars(A()))\nfor k, v in vars(args).items():\n    print(k, v)\n"],
  ['an instance __dict__ updated', 'class A:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n'],
  ["a module's namespace by constant key", "import os\nns = vars(os)\nprint(ns['getcwd']())\nprint(vars(os).get('sep'))\n"],
  ["a module's names only", "import os\nprint('fork' in vars(os), sorted(os.__dict__.keys()))\n"],
  ["a module's namespace written", "import config\nconfig.__dict__[name] = value\nvars(config).update(overrides)\ndel vars(config)[name]\n"],
  ['inspect.getmembers of an object', 'import inspect\nprint(inspect.getmembers(obj))\n'],
  // fork copies this (already analysed) program and kill sends a signal: neither runs new code
  ['os.fork and os.kill', 'import os, signal\npid = os.fork()\nif pid:\n    os.kill(pid, signal.SIGTERM)\n'],
  ['pdb imported, never entered', 'import pdb, sys\nprint(pdb.__name__, sys.breakpointhook)\n'],
  ['importlib.import_module of a plain module', "import importlib\njson = importlib.import_module('json')\n"],
  ['find_spec as an availability check', "import importlib.util\nHAS_NUMPY = importlib.util.find_spec('numpy') is not None\n"],
  ['a spec built but never run', "import importlib.util\nspec = importlib.util.spec_from_file_location('m', path)\nprint(spec.origin)\n"],
  ['a load_module method of an application class', 'class Registry:\n    def load_module(self, name):\n        return self.modules[name]\n\nRegistry().load_module("a")\n'],
  ['distutils find_executable', "from distutils.spawn import find_executable\nprint(find_executable('gcc'))\n"],
  ['distutils spawn of a fixed compiler argv', "from distutils.spawn import spawn\nspawn(['gcc', '-c', 'x.c'])\n"],
];

ruleTable('python programs and files run by other names', 'python', UNSAFE, SAFE);

/** One case per kind of gap, answered over HTTP by the worker pool. */
blockedOverHttp('POST /verify/code answers BLOCKED admission for each kind', pick(UNSAFE, ['distutils.spawn.spawn of a shell', 'spec_from_file_location + exec_module', 'vars(os).items() filtered by a computed name', 'breakpoint()'], 'python'));
