import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeTypeScript } from '../../../../plugins/engines/code/analyze.js';
import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * JavaScript that runs code or programs by routes the rules did not follow, each proven safe
 * (VERIFIED, is_valid true, ADMIT) before: a debugger or REPL opened for clients to send code to
 * (inspector.open, an inspector Session's Runtime.evaluate, SIGUSR1, repl.start), process.execve;
 * child_process loaded through the Module class reached from a Module instance
 * (process.mainModule.constructor._load), and Module's _compile(src) running a string as a module; a
 * module named at run time (`import(m)`, `require(m)`: it may be child_process) whose exec/spawn/… or a
 * computed member is called; NODE_OPTIONS set to load code into every node process or worker started
 * later (which the rules may admit as fixed programs: `execFile('npm', ['test'])`, a Worker from a file).
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['inspector.open', "require('inspector').open(9229, '0.0.0.0');\n", 'javascript.dangerous_call.debugger'],
  ['inspector.open from an import', "import inspector from 'node:inspector';\ninspector.open();\n", 'javascript.dangerous_call.debugger'],
  ['inspector.open destructured', "const { open } = require('inspector/promises');\nopen(0);\n", 'javascript.dangerous_call.debugger'],
  ['Session Runtime.evaluate', "const inspector = require('inspector');\nconst s = new inspector.Session();\ns.connect();\ns.post('Runtime.evaluate', { expression: src });\n", 'javascript.dangerous_call.code_string'],
  ['Session with a computed method', "const { Session } = require('node:inspector');\nconst s = new Session();\ns.connect();\ns.post(method, params);\n", 'javascript.dangerous_call.code_string'],
  ['SIGUSR1 starts the inspector', "process.kill(process.pid, 'SIGUSR1');\n", 'javascript.dangerous_call.debugger'],
  ['process._debugProcess', 'process._debugProcess(pid);\n', 'javascript.dangerous_call.debugger'],
  ['repl.start on a socket', "const net = require('net');\nconst repl = require('repl');\nnet.createServer((s) => repl.start({ input: s, output: s })).listen(5001);\n", 'javascript.dangerous_call.debugger'],
  ['process.mainModule.constructor._load', "process.mainModule.constructor._load('child_process').execSync('id');\n", 'javascript.process.shell_exec'],
  ['Module class through a name', "const M = process.mainModule.constructor;\nM._load('child_process').exec(cmd);\n", 'javascript.process.shell_injection'],
  ['require.main.constructor._load', "require.main.constructor._load('child_process').spawn('sh', ['-c', cmd]);\n", 'javascript.process.interpreter'],
  ['module.parent.constructor.createRequire', "module.parent.constructor.createRequire(__filename)('child_process').exec(cmd);\n", 'javascript.process.shell_injection'],
  ['new Module()._compile', "const m = new module.constructor();\nm._compile(src, 'x.js');\n", 'javascript.dangerous_call.code_string'],
  ['Module.prototype._compile.call', "const Module = require('module');\nModule.prototype._compile.call(m, 'require(\"child_process\").execSync(\"id\")', 'x.js');\n", 'javascript.dangerous_call.code_string'],
  ['import() of a computed name, then exec', "const m = 'child_' + suffix;\nimport(m).then((cp) => cp.exec(cmd));\n", 'javascript.import.dynamic'],
  ['import() destructured in then', 'import(name).then(({ execSync }) => execSync(cmd));\n', 'javascript.import.dynamic'],
  ['awaited import() destructured', 'const { spawn } = await import(name);\nspawn(prog, args);\n', 'javascript.import.dynamic'],
  ['import().default.exec', '(await import(name)).default.exec(cmd);\n', 'javascript.import.dynamic'],
  ['require() of a computed name, computed member', 'require(mod)[fn](cmd);\n', 'javascript.import.dynamic'],
  ['NODE_OPTIONS --require', "process.env.NODE_OPTIONS = '--require /tmp/hook.js';\nrequire('child_process').execFile('npm', ['test']);\n", 'javascript.process.node_options'],
  ['NODE_OPTIONS --import of a data: URL', "process.env['NODE_OPTIONS'] = '--import=data:text/javascript,process.exit(7)';\nnew (require('worker_threads').Worker)('./w.js');\n", 'javascript.process.node_options'],
  ['NODE_OPTIONS --inspect appended', "process.env.NODE_OPTIONS += ' --inspect=0.0.0.0:9229';\n", 'javascript.process.node_options'],
  ['NODE_OPTIONS computed', 'process.env.NODE_OPTIONS = opts;\n', 'javascript.process.node_options'],
  ['NODE_OPTIONS in a spawn environment', "require('child_process').execFile('npm', ['ci'], { env: { ...process.env, NODE_OPTIONS: '-r ./hook.js' } });\n", 'javascript.process.node_options'],
  ['process.execve', "process.execve('/bin/sh', ['sh']);\n", 'javascript.process.exec_replace'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['inspector never opened', "const inspector = require('inspector');\nconsole.log(inspector.url() ?? 'no debugger');\n"],
  ['Session profiling', "const { Session } = require('inspector');\nconst s = new Session();\ns.connect();\ns.post('Profiler.enable', () => s.post('Profiler.start'));\n"],
  ['the main module read', "console.log(process.mainModule.filename, require.main === module, module.constructor.name);\n"],
  ['an application _compile method', 'class Template { _compile(src) { return src.split("{{"); } }\nnew Template()._compile(text);\n'],
  ['a plugin loaded by a computed name', "const plugin = require(path.join(dir, name));\nplugin.register(app);\nimport(url).then((m) => m.default(app));\n"],
  ['NODE_OPTIONS read', "const opts = process.env.NODE_OPTIONS || '';\nif (opts.includes('--inspect')) console.warn('debugger on');\n"],
  ['NODE_OPTIONS heap size', "process.env.NODE_OPTIONS = '--max-old-space-size=4096 --enable-source-maps';\nrequire('child_process').execFile('npm', ['run', 'build'], { env: { ...process.env, NODE_OPTIONS: '--no-warnings' } });\n"],
  ['NODE_OPTIONS removed', 'delete process.env.NODE_OPTIONS;\n'],
  ['process.kill with SIGTERM', "process.kill(pid, 'SIGTERM');\n"],
];

ruleTable('javascript: code and programs run by other routes block', 'javascript', UNSAFE, SAFE);

t.test('javascript: code and programs run by other routes block: TypeScript takes the same path', async (t) => {
  const ts = await analyzeTypeScript("import * as inspector from 'node:inspector';\nconst port: number = 9229;\ninspector.open(port);\n");
  t.ok(ts.findings.some((f) => f.rule_id === 'typescript.dangerous_call.debugger' && isBlocking(f)), 'TypeScript takes the same path');
  const tsEnv = await analyzeTypeScript("const hook: string = '--require ./hook.js';\nprocess.env.NODE_OPTIONS = hook;\n");
  t.ok(tsEnv.findings.some((f) => f.rule_id === 'typescript.process.node_options' && isBlocking(f)), 'TypeScript: NODE_OPTIONS');
});

/** One case per kind of gap, answered over HTTP by the worker pool. */
blockedOverHttp('POST /verify/code answers BLOCKED admission for each kind', pick(UNSAFE, ['inspector.open', 'process.mainModule.constructor._load', 'import() of a computed name, then exec', 'NODE_OPTIONS --require'], 'javascript'));
