import t from 'tap';
import code, { isBlocking } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';
import { setFastPython } from '../../../plugins/engines/code/python/parser.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * Python that runs a program, a file or arbitrary code through names the rules did not resolve, each
 * proven safe (VERIFIED, is_valid true, ADMIT) before: distutils' spawn; a file loaded and run as a
 * module through the import loader protocol (exec_module/load_module, imp.load_source), and
 * code.InteractiveConsole, whose push() runs source.
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
  ['distutils spawn as a thread target', 'import threading, distutils.spawn\nthreading.Thread(target=distutils.spawn.spawn, args=(argv,)).start()\n', 'python.dangerous_call.reference'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['importlib.import_module of a plain module', "import importlib\njson = importlib.import_module('json')\n"],
  ['find_spec as an availability check', "import importlib.util\nHAS_NUMPY = importlib.util.find_spec('numpy') is not None\n"],
  ['a spec built but never run', "import importlib.util\nspec = importlib.util.spec_from_file_location('m', path)\nprint(spec.origin)\n"],
  ['a load_module method of an application class', 'class Registry:\n    def load_module(self, name):\n        return self.modules[name]\n\nRegistry().load_module("a")\n'],
  ['distutils find_executable', "from distutils.spawn import find_executable\nprint(find_executable('gcc'))\n"],
  ['distutils spawn of a fixed compiler argv', "from distutils.spawn import spawn\nspawn(['gcc', '-c', 'x.c'])\n"],
];

for (const fast of [true, false]) {
  t.test(`python programs and files run by other names (fast parser ${fast ? 'on' : 'off'})`, async (t) => {
    setFastPython(fast);
    t.teardown(() => void setFastPython(true));
    for (const [name, src, rule] of UNSAFE) {
      const a = await analyzePython(src);
      t.ok(a.parseOk, `${name}: parses`);
      t.ok(a.findings.some((f) => f.rule_id === rule && isBlocking(f)), `${name}: blocking ${rule} in [${a.findings.map((f) => f.rule_id).join(', ')}]`);
    }
    for (const [name, src] of SAFE) {
      const a = await analyzePython(src);
      t.ok(a.parseOk, `${name}: parses`);
      t.same(a.findings.filter(isBlocking).map((f) => f.rule_id), [], `${name}: nothing blocking`);
    }
  });
}

/** One case per kind of gap, answered over HTTP by the worker pool. */
const OVER_HTTP = ['distutils.spawn.spawn of a shell', 'spec_from_file_location + exec_module'];

t.test('POST /verify/code answers BLOCKED admission for each kind', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  for (const [name, src] of UNSAFE.filter(([n]) => OVER_HTTP.includes(n))) {
    const r = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { code: src } });
    t.equal(r.status, 200, name);
    t.equal(r.body.status, 'VERIFIED', name);
    t.equal(r.body.admission, 'BLOCKED', name);
    t.equal(r.body.developer_fields.is_valid, false, name);
  }
});
