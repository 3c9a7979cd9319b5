import { blockedOverHttp, ruleTable } from '../rule-table.js';

/**
 * A risky builtin's name bound only by imports was taken to be the import everywhere, so each of these
 * was VERIFIED is_valid true / ADMIT, yet Python finds the builtin when the import's global binding is
 * not there at the call: an import that did not run (`if False:`, a failed `try:`), one inside a def
 * or class (a local), one removed by `del` or through globals(), and a call before the import ran.
 */
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['del after import', 'from json import loads as exec\ndel exec\nexec(src)\n', 'python.dangerous_call.exec'],
  ['del re.compile', "from re import compile\ndel compile\ncompile(src, '', 'exec')\n", 'python.dangerous_call.compile'],
  ['import under if False', 'if False:\n    from json import loads as exec\nexec(src)\n', 'python.dangerous_call.exec'],
  ['import in a failing try', 'try:\n    from nothing_here import eval\nexcept ImportError:\n    pass\neval(src)\n', 'python.dangerous_call.eval'],
  ['import inside a def', 'def f():\n    from json import loads as exec\nexec(src)\n', 'python.dangerous_call.exec'],
  ['import inside a class', 'class C:\n    from json import loads as exec\nexec(src)\n', 'python.dangerous_call.exec'],
  ['globals().pop', "from json import loads as exec\nglobals().pop('exec')\nexec(src)\n", 'python.dangerous_call.exec'],
  ['call before the import', 'exec(src)\nfrom json import loads as exec\n', 'python.dangerous_call.exec'],
];
const SAFE: Array<[name: string, src: string]> = [
  ['from re import compile', 'from re import compile\nr = compile(p)\n'],
  ['re.compile used in a def', 'from re import compile\ndef f(p):\n    return compile(p)\n'],
  ['module imported as exec', 'import json as exec\nexec.loads(s)\n'],
];

ruleTable('python import shadowing a builtin', 'python', UNSAFE, SAFE);

blockedOverHttp('POST /verify/code answers BLOCKED admission for exec after del', [[UNSAFE[0][0], UNSAFE[0][1], 'python']]);
