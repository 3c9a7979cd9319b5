import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * JavaScript that reached child_process or eval while the engine answered VERIFIED, is_valid true,
 * ADMIT: require called through call/apply/bind/Reflect.apply, process.getBuiltinModule, the
 * `default` export of a namespace import, child_process functions and the module itself handed on
 * as values, a child_process member chosen at run time, Reflect.get and property descriptors on the
 * global object, the Function constructor through a destructuring pattern, and top-level `this`.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['require.call', `require.call(null, 'child_process').exec(cmd)`, 'javascript.process.shell_injection'],
  ['require.apply', `require.apply(null, ['child_process']).exec(cmd)`, 'javascript.process.shell_injection'],
  ['Reflect.apply(require)', `Reflect.apply(require, null, ['child_process']).exec(cmd)`, 'javascript.process.shell_injection'],
  ['require.bind', `require.bind(null)('child_process').exec(cmd)`, 'javascript.process.shell_injection'],
  ['require.call of a computed name, asked to exec', `require.call(null, mod).exec(cmd)`, 'javascript.import.dynamic'],
  ['process.getBuiltinModule', `process.getBuiltinModule('child_process').exec(cmd)`, 'javascript.process.shell_injection'],
  ['globalThis.process.getBuiltinModule with node:', `globalThis.process.getBuiltinModule('node:child_process').execSync(cmd)`, 'javascript.process.shell_injection'],
  ['process.getBuiltinModule of a computed name', `process.getBuiltinModule(m).exec(cmd)`, 'javascript.import.dynamic'],
  ['namespace import default', `import * as ns from 'child_process'; ns.default.exec(cmd)`, 'javascript.process.shell_injection'],
  ['import() default', `const m = await import('child_process'); m.default.exec(cmd)`, 'javascript.process.shell_injection'],
  ['import().then default', `import('child_process').then((m) => m.default.execSync(cmd))`, 'javascript.process.shell_injection'],
  ['exec.call', `require('child_process').exec.call(null, cmd)`, 'javascript.process.shell_injection'],
  ['execSync.apply', `require('child_process').execSync.apply(null, [cmd])`, 'javascript.process.shell_injection'],
  ['Reflect.apply(exec)', `Reflect.apply(require('child_process').exec, null, [cmd])`, 'javascript.process.shell_injection'],
  ['exec.bind then called', `const run = require('child_process').exec.bind(null); run(cmd)`, 'javascript.process.shell_injection'],
  ['promisify(exec) then called', `const util = require('util'); const cp = require('child_process'); const run = util.promisify(cp.exec); run(cmd)`, 'javascript.process.shell_injection'],
  ['exec in an array', `const cp = require('child_process'); const [a] = [cp.exec]; a(cmd)`, 'javascript.process.shell_injection'],
  ['exec given to a timer', `const cp = require('child_process'); setTimeout(cp.exec, 0, cmd)`, 'javascript.dangerous_call.reference'],
  ['exec given to forEach', `const { execSync } = require('child_process'); cmds.forEach(execSync)`, 'javascript.dangerous_call.reference'],
  ['vm.runInThisContext as a value', `const vm = require('vm'); [src].map(vm.runInThisContext)`, 'javascript.dangerous_call.reference'],
  ['module returned', `const cp = require('child_process'); function get() { return cp } get().exec(cmd)`, 'javascript.dangerous_call.module_reference'],
  ['Object.values of the module', `const cp = require('child_process'); Object.values(cp)[3](cmd)`, 'javascript.dangerous_call.module_reference'],
  ['module through an identity function', `const id = (x) => x; id(require('child_process')).exec(cmd)`, 'javascript.dangerous_call.module_reference'],
  ['computed member of child_process', `const cp = require('child_process'); cp[name](cmd)`, 'javascript.dangerous_call.module_dynamic'],
  ['for-in over child_process', `const cp = require('child_process'); for (const k in cp) if (k === 'exec') cp[k](cmd)`, 'javascript.dangerous_call.module_dynamic'],
  ['Reflect.get of exec', `Reflect.get(require('child_process'), 'exec')(cmd)`, 'javascript.process.shell_injection'],
  ['Reflect.get(globalThis, eval)', `Reflect.get(globalThis, 'ev' + 'al')(src)`, 'javascript.dangerous_call.eval'],
  ['Reflect.get(globalThis, computed)', `Reflect.get(globalThis, name)(src)`, 'javascript.dangerous_call.global_dynamic'],
  ['property descriptor of eval', `Object.getOwnPropertyDescriptor(globalThis, 'eval').value(src)`, 'javascript.dangerous_call.eval'],
  ['Function from a destructured constructor', `const { constructor: F } = () => {}; F(src)()`, 'javascript.dangerous_call.function'],
  ['Function from a nested pattern', `const { constructor: { constructor: F } } = {}; F(src)()`, 'javascript.dangerous_call.function'],
  ['Function from x.constructor.constructor by name', `const F = ({}).constructor.constructor; F(src)()`, 'javascript.dangerous_call.function'],
  ['top-level this.eval', `this.eval(src)`, 'javascript.dangerous_call.eval'],
  ['this.eval in a top-level arrow', `const run = () => this.eval(src); run()`, 'javascript.dangerous_call.eval'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['destructured execFile with a fixed argv', `const { execFile } = require('child_process'); execFile('git', ['status'])`],
  ['promisified execFile with a fixed argv', `const { promisify } = require('util'); const { execFile } = require('child_process'); const run = promisify(execFile); run('git', ['status'])`],
  ['ESM promisify', `import { promisify } from 'node:util'; import { execFile } from 'node:child_process'; const p = promisify(execFile); await p('ls', ['-l'])`],
  ['execFile.call with a fixed argv', `const cp = require('child_process'); cp.execFile.call(null, 'git', ['status'])`],
  ['execFile.bind(cp)', `const cp = require('child_process'); const f = cp.execFile.bind(cp); f('git', ['status'])`],
  ['console.log of the module', `console.log(require('child_process'))`],
  ['the module re-exported', `import * as cp from 'child_process'; export default cp`],
  ['a class with an eval method', `class Expr { eval(env) { return env } run() { return this.eval({}) } }`],
  ['an object with an eval method', `const o = { eval(x) { return x }, run() { return this.eval(1) } }`],
  ['Reflect.apply of an ordinary function', `Reflect.apply(Math.max, null, [1, 2])`],
  ['a numeric index on window', `const first = window[0]`],
  ['array destructuring of data', `const [a, b] = [1, 2]; console.log(a + b)`],
];

ruleTable('JavaScript value flows and call forms', 'javascript', UNSAFE, SAFE);

blockedOverHttp(
  'POST /verify/code blocks JavaScript value flows',
  pick(UNSAFE, ['require.call', 'process.getBuiltinModule', 'namespace import default', 'exec.call', 'module returned', 'computed member of child_process'], 'javascript'),
  pick(SAFE, ['promisified execFile with a fixed argv', 'a class with an eval method'], 'javascript'),
);
