import t from 'tap';
import code, { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeJavaScript, analyzeTypeScript } from '../../../../plugins/engines/code/analyze.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../../helpers/server.js';

/**
 * JavaScript/TypeScript the engine read as something other than what runs, each VERIFIED is_valid
 * true / ADMIT before: a TypeScript namespace, whose body sucrase removes (TypeScript compiles it to
 * code that runs), and HTML-like comments (`<!--`, a line-leading `-->`), comments only in a
 * sloppy-mode script and code in a module or to other tools. Both are now refused as unreadable.
 */
const REFUSED_TS: Array<[name: string, src: string]> = [
  ['namespace', 'namespace N { eval(src); }\n'],
  ['exported dotted namespace', "export namespace A.B { export const run = () => require('child_process').execSync(cmd); }\n"],
  ['module N', 'module M { eval(src) }\n'],
  ['namespace after an ambient one', 'declare namespace D { const x: number; }\nnamespace N { eval(src) }\n'],
  ['namespace in TSX', 'namespace N { export const el = <div>{eval(src)}</div>; }\n'],
];
const SAFE_TS: Array<[name: string, src: string]> = [
  ['declare namespace', 'declare namespace D { namespace E { const x: number; } }\nconst y = 1;\n'],
  ["declare module 'x'", "declare module 'x' { export const a: number; }\n"],
  ['namespace as a variable', 'const namespace = 1;\nconsole.log(namespace);\n'],
];
const REFUSED_JS: Array<[name: string, src: string]> = [
  ['<!-- comment', 'x = 1;\n<!-- eval(src);\n'],
  ['--> after a block comment', 'x = 1;\n/*\n*/ --> eval(src)\n'],
  ['--> at the start', '--> eval(src)\n'],
];
const SAFE_JS: Array<[name: string, src: string]> = [
  ['<!-- in a string', "const s = '<!-- hi -->';\nconsole.log(s.includes('-->'));\n"],
  ['<!-- in a line comment', '// <!-- legacy -->\nconsole.log(1);\n'],
  ['hashbang', '#!/usr/bin/env node\nconsole.log(1);\n'],
  ['hashbang in a sloppy script', '#!/usr/bin/env node\nwith (Math) { console.log(PI); }\n'],
];

t.test('typescript: a namespace sucrase would remove is refused', async (t) => {
  for (const [name, src] of REFUSED_TS) t.equal((await analyzeTypeScript(src)).parseOk, false, `${name}: refused`);
  for (const [name, src] of SAFE_TS) {
    const a = await analyzeTypeScript(src);
    t.ok(a.parseOk, `${name}: parses`);
    t.same(a.findings.filter(isBlocking).map((f) => f.rule_id), [], `${name}: nothing blocking`);
  }
});

t.test('javascript: an HTML-like comment is refused', async (t) => {
  for (const [name, src] of REFUSED_JS) t.equal((await analyzeJavaScript(src)).parseOk, false, `${name}: refused`);
  for (const [name, src] of SAFE_JS) {
    const a = await analyzeJavaScript(src);
    t.ok(a.parseOk, `${name}: parses`);
    t.same(a.findings.filter(isBlocking).map((f) => f.rule_id), [], `${name}: nothing blocking`);
  }
});

t.test('POST /verify/code refuses a namespace and an HTML-like comment', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  for (const [language, src] of [['typescript', REFUSED_TS[0][1]], ['javascript', REFUSED_JS[0][1]]]) {
    const r = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language, code: src } });
    t.equal(r.status, 200);
    t.equal(r.body.admission, 'BLOCKED', `${language}: BLOCKED`);
    t.equal(r.body.constraint_id, 'code_verifier.parse_error');
  }
  const ok = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language: 'javascript', code: SAFE_JS[2][1] } });
  t.equal(ok.body.admission, 'ADMIT');
});
