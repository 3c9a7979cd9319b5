import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeTypeScript } from '../../../../plugins/engines/code/analyze.js';
import { blockedOverHttp, ruleTable } from '../rule-table.js';

/**
 * JavaScript that compiles or loads code by names the rules did not resolve, each proven safe
 * (VERIFIED, is_valid true, ADMIT) before: the Function/AsyncFunction/GeneratorFunction constructor
 * taken from a function's `.constructor` into a variable, `new Worker(src, { eval: true })`, and
 * child_process loaded through module.createRequire or Module._load.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['arrow .constructor through a name', "const F = (() => {}).constructor;\nF('return process')();\n", 'javascript.dangerous_call.function'],
  ['AsyncFunction via getPrototypeOf', "const F = Object.getPrototypeOf(async function () {}).constructor;\nF('await 1')();\n", 'javascript.dangerous_call.function'],
  ['GeneratorFunction via Reflect', "const G = Reflect.getPrototypeOf(function* () {}).constructor;\nG('yield 1');\n", 'javascript.dangerous_call.function'],
  ['declared function .constructor', "async function a() {}\nconst F = a.constructor;\nnew F(src);\n", 'javascript.dangerous_call.function'],
  ['Worker eval: true', "const { Worker } = require('worker_threads');\nnew Worker('process.exit(1)', { eval: true });\n", 'javascript.dangerous_call.code_string'],
  ['Worker computed options', "import { Worker } from 'node:worker_threads';\nnew Worker(src, opts);\n", 'javascript.dangerous_call.code_string'],
  ['createRequire', "require('module').createRequire(__filename)('child_process').execSync('id');\n", 'javascript.process.shell_exec'],
  ['createRequire through a name', "import { createRequire } from 'module';\nconst r = createRequire(import.meta.url);\nr('child_process').exec(cmd);\n", 'javascript.process.shell_injection'],
  ['Module._load', "module.constructor._load('child_process').execSync('id');\n", 'javascript.process.shell_exec'],
  // eval reached through a member and taken as a value
  ['globalThis.eval.call', 'globalThis.eval.call(null, src);\n', 'javascript.dangerous_call.reference'],
  ['window.Function.apply', 'window.Function.apply(null, [src])();\n', 'javascript.dangerous_call.reference'],
  ['Reflect.apply of self.eval', 'Reflect.apply(self.eval, null, [src]);\n', 'javascript.dangerous_call.reference'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['constructor name check', "function isAsync(fn) { return fn.constructor.name === 'AsyncFunction'; }\n"],
  ['class constructor name', 'class A { m() { return this.constructor.name; } }\n'],
  ['Worker from a file', "const { Worker } = require('worker_threads');\nnew Worker('./worker.js', { workerData: 1 });\n"],
  ['Worker eval: false', "const { Worker } = require('worker_threads');\nnew Worker('./worker.js', { eval: false });\n"],
  ['call/apply of other members', 'obj.method.call(this, x);\nconsole.log.apply(console, args);\nrunner.eval.call(runner, y);\n'],
  ['createRequire of data', "import { createRequire } from 'module';\nconst r = createRequire(import.meta.url);\nconst pkg = r('./package.json');\n"],
];

ruleTable('javascript: code compiled or loaded by another name blocks', 'javascript', UNSAFE, SAFE);

t.test('javascript: code compiled or loaded by another name blocks: TypeScript takes the same path', async (t) => {
  const ts = await analyzeTypeScript("const F: any = Object.getPrototypeOf(async function () {}).constructor;\nF('x')();\n");
  t.ok(ts.findings.some((f) => f.rule_id === 'typescript.dangerous_call.function' && isBlocking(f)), 'TypeScript takes the same path');
});

blockedOverHttp('POST /verify/code answers BLOCKED admission for the AsyncFunction constructor', [[UNSAFE[1][0], UNSAFE[1][1], 'javascript']]);
