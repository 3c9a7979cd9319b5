import t from 'tap';
import code, { isBlocking } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';
import { setFastPython } from '../../../plugins/engines/code/python/parser.js';
import { startServer, testAuthPlugin, TEST_API_KEY } from '../../helpers/server.js';

/**
 * Python whose text CPython reads differently from the submitted text, each VERIFIED is_valid true /
 * ADMIT before: a PEP 263 coding declaration the engine did not apply (unicode_escape turns `\x27`
 * into a quote and `\n` in a comment into a line break, utf-7 turns `+AGUAdgBhAGw-` into `eval`),
 * a lone CR ending a comment line (CPython's universal newlines), and a null byte (CPython refuses the
 * file; the fast parser took it). Refused as code the engine cannot read, or read as CPython does.
 */
const REFUSED: Array<[name: string, src: string]> = [
  ['coding utf-7', '# coding: utf-7\n+AGUAdgBhAGw-(src)\n'],
  ['coding unicode_escape in a string', "# coding: unicode_escape\nx = '\\x27; exec(src) #'\n"],
  ['coding unicode_escape in a comment', '# -*- coding: unicode_escape -*-\n# note \\nexec(src)\n'],
  ['coding raw_unicode_escape on line 2', "#!/usr/bin/env python\n# vim: set fileencoding=raw_unicode_escape :\nx = '\\u0027; exec(src) #'\n"],
  ['BOM and coding utf-7', '\ufeff# coding: utf-7\n+AGUAdgBhAGw-(src)\n'],
  ['latin-1 over non-ASCII text', "# -*- coding: latin-1 -*-\nx = 'caf\u00e9'\n"],
  ['null byte in a comment', 'x = 1  # a\0b\n'],
];
const BLOCKED: Array<[name: string, src: string, rule: string]> = [
  ['lone CR ends a comment', '# note\rexec(src)\n', 'python.dangerous_call.exec'],
  ['lone CR after code', 'x = 1  # note\reval(src)\r', 'python.dangerous_call.eval'],
];
const SAFE: Array<[name: string, src: string]> = [
  ['coding utf-8', "# -*- coding: utf-8 -*-\nprint('caf\u00e9')\n"],
  ['coding UTF_8 on line 2', '#!/usr/bin/env python3\n# coding=UTF_8\nprint(1)\n'],
  ['coding latin-1 over ASCII', "# -*- coding: latin-1 -*-\nprint('hi')\n"],
  ['BOM and coding utf-8', '\ufeff# coding: utf-8\nprint(1)\n'],
  ['CR line endings', 'x = 1\ry = 2\rprint(x + y)\r'],
  ['CRLF line endings', 'x = 1\r\nprint(x)\r\n'],
  ['a coding comment past line 2', 'x = 1\ny = 2\n# coding: utf-7\n'],
  ['unicode identifier', 'caf\u00e9 = 1\nprint(caf\u00e9)\n'],
];

for (const fast of [true, false]) {
  t.test(`python source text (fast parser ${fast ? 'on' : 'off'})`, async (t) => {
    setFastPython(fast);
    t.teardown(() => void setFastPython(true));
    for (const [name, src] of REFUSED) {
      const a = await analyzePython(src);
      t.equal(a.parseOk, false, `${name}: refused (${a.parseError?.message})`);
    }
    for (const [name, src, rule] of BLOCKED) {
      const a = await analyzePython(src);
      t.ok(a.parseOk && a.findings.some((f) => f.rule_id === rule && isBlocking(f)), `${name}: blocking ${rule} in [${a.findings.map((f) => f.rule_id).join(', ')}]`);
    }
    for (const [name, src] of SAFE) {
      const a = await analyzePython(src);
      t.ok(a.parseOk, `${name}: parses (${a.parseError?.message ?? ''})`);
      t.same(a.findings.filter(isBlocking).map((f) => f.rule_id), [], `${name}: nothing blocking`);
    }
  });
}

t.test('POST /verify/code refuses an unapplied coding declaration and admits utf-8', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), code], config: { workers: { threads: 1, task_timeout_ms: 10_000 } } });
  t.teardown(() => s.close());
  const bad = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language: 'python', code: REFUSED[1][1] } });
  t.equal(bad.status, 200);
  t.equal(bad.body.status, 'BLOCKED');
  t.equal(bad.body.admission, 'BLOCKED');
  t.equal(bad.body.constraint_id, 'code_verifier.parse_error');
  const cr = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language: 'python', code: BLOCKED[0][1] } });
  t.equal(cr.body.admission, 'BLOCKED');
  t.equal(cr.body.developer_fields.is_valid, false);
  const ok = await s.request('POST', '/verify/code', { apiKey: TEST_API_KEY, body: { language: 'python', code: SAFE[0][1] } });
  t.equal(ok.body.status, 'VERIFIED');
  t.equal(ok.body.admission, 'ADMIT');
});
