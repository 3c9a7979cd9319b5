import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * A timer given a computed value that is not a function (a browser stringifies and evaluates it, as
 * eval does) was admitted unless it was a literal, a template or a `+`; and `this.eval(src)` was eval
 * only at a script's top level, not in a sloppy ordinary function, whose plain call, IIFE or callback
 * runs with `this` bound to globalThis. Both were VERIFIED, is_valid true, ADMIT.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['setTimeout of page text through a name', 'const code = location.hash.slice(1);\nsetTimeout(code, 10);\n', 'javascript.dangerous_call.string_timer'],
  ['setTimeout of an input value', "setTimeout(document.getElementById('x').value);\n", 'javascript.dangerous_call.string_timer'],
  ['setInterval of String()', 'const c = String(x);\nsetInterval(c, 1000);\n', 'javascript.dangerous_call.string_timer'],
  ['window.setTimeout of atob', 'window.setTimeout(atob(s));\n', 'javascript.dangerous_call.string_timer'],
  ['setImmediate of a join', "setImmediate(parts.join(''));\n", 'javascript.dangerous_call.string_timer'],
  ['setTimeout of a conditional string', "setTimeout(ok ? 'go()' : fn, 1);\n", 'javascript.dangerous_call.string_timer'],
  ['setTimeout.call of a string', 'setTimeout.call(null, JSON.stringify(d));\n', 'javascript.dangerous_call.string_timer'],
  ['setTimeout of new String', 'setTimeout(new String(x));\n', 'javascript.dangerous_call.string_timer'],
  ['this.eval in a function', 'function run(src) { return this.eval(src); }\nrun(location.hash);\n', 'javascript.dangerous_call.eval'],
  ['this.eval in an IIFE', '(function () { this.eval(src); })();\n', 'javascript.dangerous_call.eval'],
  ['this.eval in a callback', '[1].forEach(function () { this.eval(src); });\n', 'javascript.dangerous_call.eval'],
  ['this.eval in an arrow inside a function', 'function f() { const g = () => this.eval(src); return g; }\n', 'javascript.dangerous_call.eval'],
  ['the global object from an IIFE', '(function () { return this; })().eval(src);\n', 'javascript.dangerous_call.eval'],
  ['the global object from a declared function', 'function g() { return this; }\nvar G = g();\nG.eval(src);\n', 'javascript.dangerous_call.eval'],
  ['the global object from a top-level arrow', '(() => this)().eval(src);\n', 'javascript.dangerous_call.eval'],
  ['the global object through .call(null)', '(function () { return this; }).call(null).eval(src);\n', 'javascript.dangerous_call.eval'],
  ['the global object through .bind(null)()', 'function g() { return this; }\ng.bind(null)().eval(src);\n', 'javascript.dangerous_call.eval'],
  ['this.Function in a function', 'function f() { return this.Function(src)(); }\n', 'javascript.dangerous_call.function'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['setTimeout of a declared function', 'function tick() {}\nsetTimeout(tick, 10);\n'],
  ['setTimeout of a promise resolver', 'const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));\n'],
  ['setTimeout of a bound method', 'setTimeout(this.tick.bind(this), 10);\n'],
  ['setTimeout of a parameter', 'function later(cb) { setTimeout(cb, 1); }\n'],
  ['setTimeout of a looked-up handler', 'setTimeout(handlers[name], 10);\n'],
  ['this.eval under use strict', "'use strict';\nfunction f() { return this.eval(src); }\n"],
  ['this.eval in a strict function', "function f() { 'use strict'; return this.eval(src); }\n"],
  ['this.eval in an ES module', "import x from 'y';\nexport function f() { return this.eval(src); }\n"],
  ['this.eval in a class method', 'class A { m() { return this.eval(src); } }\n'],
  ['a strict IIFE returns undefined', "'use strict';\nvar G = (function () { return this; })();\n"],
  ['a function returning a member of this', 'function f() { return this.x; }\nf().eval(y);\n'],
  ['this.eval in an object method', 'const o = { m() { return this.eval(src); }, eval(s) { return s; } };\n'],
  ['this.eval in a prototype method', 'function Calc() {}\nCalc.prototype.eval = function (e) { return e; };\nCalc.prototype.run = function (e) { return this.eval(e); };\n'],
];

ruleTable('javascript: string timers and this.eval in sloppy functions', 'javascript', UNSAFE, SAFE);

blockedOverHttp(
  'POST /verify/code answers BLOCKED admission for a string timer and this.eval in a function',
  pick(UNSAFE, ['setTimeout of page text through a name', 'this.eval in an IIFE'], 'javascript'),
  pick(SAFE, ['setTimeout of a promise resolver', 'this.eval in a class method'], 'javascript'),
);
