import t from 'tap';
import code, { isBlocking } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';
import { setFastPython } from '../../../plugins/engines/code/python/parser.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * Python that runs a program, a file or arbitrary code through names the rules did not resolve, each
 * proven safe (VERIFIED, is_valid true, ADMIT) before: distutils' spawn.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['distutils.spawn.spawn of a shell', "from distutils.spawn import spawn\nspawn(['sh', '-c', cmd])\n", 'python.process.interpreter'],
  ['distutils.spawn.spawn dotted', "import distutils.spawn\ndistutils.spawn.spawn(['id'])\n", 'python.process.host_recon'],
  ['distutils.spawn.spawn computed', 'import distutils.spawn as ds\nds.spawn(argv)\n', 'python.process.dynamic_program'],
  ["setuptools' vendored spawn", "from setuptools._distutils.spawn import spawn\nspawn(['bash', 'x.sh'])\n", 'python.process.interpreter'],
  ['distutils spawn as a thread target', 'import threading, distutils.spawn\nthreading.Thread(target=distutils.spawn.spawn, args=(argv,)).start()\n', 'python.dangerous_call.reference'],
];

const SAFE: Array<[name: string, src: string]> = [
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
const OVER_HTTP = ['distutils.spawn.spawn of a shell'];

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
