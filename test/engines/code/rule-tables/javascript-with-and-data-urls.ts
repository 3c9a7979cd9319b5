import { ruleTable, blockedOverHttp, pick } from '../rule-table.js';

/**
 * Two ways to run code the resolver did not follow, each proven safe (VERIFIED, is_valid true,
 * ADMIT) before (left open by the obfuscation probe): a `with` statement, which makes a bare name in
 * its body a member of its object, and a data: URL, whose text Node loads as a module or a Worker's
 * script.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['with (require(child_process))', "with (require('child_process')) execSync('id');\n", 'javascript.process.shell_exec'],
  ['with through a binding', "const cp = require('child_process');\nwith (cp) { exec(cmd); }\n", 'javascript.process.shell_injection'],
  ['with (require(vm))', "with (require('vm')) runInThisContext(src);\n", 'javascript.dangerous_call.vm'],
  ['import() of a data: URL plus text', "import('data:text/javascript,' + src);\n", 'javascript.dangerous_call.code_string'],
  ['import() of a data: URL template', 'await import(`data:text/javascript,${src}`);\n', 'javascript.dangerous_call.code_string'],
  ['static import of a data: URL', "import 'data:text/javascript,process.exit(7)';\n", 'javascript.dangerous_call.code_string'],
  ['Worker from new URL(data:)', "const { Worker } = require('worker_threads');\nnew Worker(new URL('data:text/javascript,' + src));\n", 'javascript.dangerous_call.code_string'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['with (Math)', 'with (Math) { console.log(max(1, 2)); }\n'],
  ['a data: URL for an image', "const img = new URL('data:image/png;base64,' + b64);\n"],
  ['a JSON data: import', "import cfg from 'data:application/json,{\"a\":1}' with { type: 'json' };\nconsole.log(cfg);\n"],
  ['a data: string', "const s = 'data:text/plain,hi';\nconsole.log(s);\n"],
  ['a Worker from a file', "const { Worker } = require('worker_threads');\nnew Worker('./w.js');\n"],
];

ruleTable('with and data: URLs: blocking findings, benign look-alikes admitted', 'javascript', UNSAFE, SAFE);

blockedOverHttp('POST /verify/code answers BLOCKED for both', pick(UNSAFE, ['with (require(child_process))', 'import() of a data: URL plus text'], 'javascript'));
