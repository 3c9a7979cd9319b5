import t from 'tap';
import { analyzePythonSync } from '../../../plugins/engines/code/analyze.js';
import { MAX_DEPTH, fastPythonOn, initPython, parsePythonSync, parseTreeSitter, setFastPython } from '../../../plugins/engines/code/python/parser.js';
import { SAMPLE, sameTrees } from '../../../plugins/engines/code/python/fast/selfcheck.js';
import { Source } from '../../../plugins/engines/code/python/pynode.js';
import { fastParse } from '../../../plugins/engines/code/python/fast/index.js';
import { checkAll as run, corpusInputs, snippetInputs } from '../../helpers/python-trees.js';

/**
 * The fast Python parser must give tree-sitter's tree whenever it accepts an input: a wrong tree
 * would be a wrong verdict. Checked on every corpus line, every string literal of the code and A2A
 * tests (python-fast-stdlib.test.ts: the local standard library; python-fast-fuzz.test.ts: mutations).
 * The acceptance rates are printed: the speed gain is proportional to them.
 */
t.before(async () => {
  await initPython();
});

t.test('corpus: all accepted, identical trees', async (t) => {
  const inputs = corpusInputs();
  t.equal(run(t, 'corpus', inputs), inputs.length, 'the whole corpus takes the fast path');
});

t.test('test snippets: identical trees where accepted', async (t) => {
  const inputs = snippetInputs();
  t.ok(inputs.length > 500, `${inputs.length} string literals collected`);
  t.ok(run(t, 'snippets', inputs) > 0);
});

t.test('every pair of operators groups as in tree-sitter\'s tree', async (t) => {
  // tree-sitter-python's precedences are not all Python's (`^` binds tighter than `&` there)
  const binary = ['|', '^', '&', '<<', '>>', '+', '-', '*', '/', '//', '%', '@', '**', '<', '==', 'in', 'not in', 'is', 'is not', 'and', 'or'];
  const plain: Array<[string, string]> = [];
  const mixed: Array<[string, string]> = [];
  for (const a of binary) {
    for (const b of binary) {
      plain.push([`${a} ${b}`, `x = p ${a} q ${b} r\n`]);
      mixed.push([`${a} ${b} unary`, `x = -p ${a} not q ${b} ~r\n`], [`${a} ${b} ternary`, `x = p ${a} q if r ${b} s else lambda: t ${a} u\n`]);
    }
  }
  t.equal(run(t, 'operator pairs', plain), plain.length, 'every pair is accepted');
  t.ok(run(t, 'operator pairs with unary, not, conditional, lambda', mixed) > mixed.length / 2);
});

t.test('what the fast parser refuses goes to tree-sitter, with its errors', async (t) => {
  const refused = [
    'print "py2"\n', // Python 2: tree-sitter flags it
    'def f(:\n    pass\n', // syntax error
    'x = 1 + \\\n\n', // a line continuation before a blank line
    'if x:\n\ty = 1\n', // tab indentation
    'match p:\n    case 1:\n        pass\n', // soft keyword
    'x = (' + '('.repeat(150) + '1' + ')'.repeat(150) + ')\n', // deeper than the fast path goes
  ];
  for (const code of refused) t.equal(fastParse(code, new Source(code), MAX_DEPTH), null, JSON.stringify(code.slice(0, 30)));
  t.match(parsePythonSync('print "py2"\n').error, { message: /Python 2 print statement/ });
  t.match(parsePythonSync('def f(:\n    pass\n').error, { line: 1 });
});

t.test('with the fast path off: the same analysis from tree-sitter alone', async (t) => {
  let checked = 0;
  for (const [id, code] of [...corpusInputs(), ...snippetInputs()]) {
    const fast = analyzePythonSync(code);
    const was = setFastPython(false);
    const slow = analyzePythonSync(code);
    setFastPython(was);
    if (JSON.stringify(fast) !== JSON.stringify(slow)) t.same(fast, slow, id);
    else checked++;
  }
  t.ok(checked > 1000, `${checked} analyses identical with and without the fast path`);
});

t.test('the start-up check: the sample parses to tree-sitter\'s tree, and a difference turns the path off', async (t) => {
  t.ok(fastPythonOn(), 'the check passed at initPython(): the fast path is on');
  const fast = fastParse(SAMPLE, new Source(SAMPLE), MAX_DEPTH);
  t.ok(sameTrees(fast, parseTreeSitter(SAMPLE)), 'the sample is the same tree both ways');
  t.notOk(sameTrees(null, parseTreeSitter(SAMPLE)), 'a sample the fast parser refuses fails the check');
  const moved = fastParse(SAMPLE, new Source(SAMPLE), MAX_DEPTH);
  const op = moved?.nodes.find((n) => n.field === 'operator');
  if (op) (op as unknown as { field: string }).field = 'operators';
  t.ok(op, 'the sample has a field-carrying operator');
  t.notOk(sameTrees(moved, parseTreeSitter(SAMPLE)), 'one field differing fails the check');
});

t.test('plugin_config.code.python_fast_parser: false reaches the worker with every task and turns the fast path off there', async (t) => {
  const { withPythonSwitch } = await import('../../../plugins/engines/code/verifier.js');
  const seen: unknown[] = [];
  const engine = { name: 'code', version: '1', run: async <O>(_fn: string, input: unknown) => (seen.push(input), undefined as O) };
  const app = (code: Parameters<typeof withPythonSwitch>[0] | undefined) => code ?? {};
  t.equal(withPythonSwitch(app(undefined), engine), engine, 'default: the handle as it is, tasks carry nothing extra');
  t.equal(withPythonSwitch(app({ python_fast_parser: true }), engine), engine, 'true: the same');
  await withPythonSwitch(app({ python_fast_parser: false }), engine).run('verify', { code: 'x = 1\n', language: 'python' });
  t.same(seen, [{ code: 'x = 1\n', language: 'python', python_fast: false }], 'false: each task says so');

  const { verify } = await import('../../../plugins/engines/code/engine.js');
  const code = 'import os\nos.system(cmd)\n';
  const off = await verify({ code, language: 'python', python_fast: false });
  t.notOk(fastPythonOn(), 'a task with python_fast: false leaves the thread on tree-sitter');
  const on = await verify({ code, language: 'python' });
  t.ok(fastPythonOn(), 'a task without it turns the fast path back on');
  t.same(off, on, 'the same verdict either way');
});

t.test('plugin_config.code is checked at start-up: a non-boolean switch or an unknown key stops the server', async (t) => {
  const { startServer, testAuthPlugin, TEST_API_KEY } = await import('../../helpers/server.js');
  const { default: code } = await import('../../../plugins/engines/code/index.js');
  const plugins = [testAuthPlugin(), code];
  for (const bad of [{ python_fast_parser: 'off' }, { python_fast: false }]) {
    await t.rejects(startServer({ plugins, config: { plugin_config: { code: bad } } }), /plugin_config\.code/, JSON.stringify(bad));
  }
  const s = await startServer({ plugins, config: { plugin_config: { code: { python_fast_parser: false } } } });
  t.teardown(() => s.close());
  const r = await s.request('POST', '/verify/code', { body: { code: 'import os\nos.system(cmd)\n', language: 'python' }, apiKey: TEST_API_KEY });
  t.equal(r.status, 200);
  t.equal(r.body.admission, 'BLOCKED', 'switched off, the engine still finds os.system');
  t.ok(r.body.vulnerabilities.some((v: { rule_id: string }) => v.rule_id.startsWith('python.process.')));
});

t.test('hostile layouts around dangerous calls: the same findings with the fast path on and off, and the call found', async (t) => {
  const dangerous = [
    'import subprocess as sp  # harmless\nsp.Popen(cmd, shell=True)\n',
    'from os import system as s\n# s is fine\ns(user)\n',
    'import os\nos.\\\nsystem(x)\n',
    'x = \'os.system(1)\'  # "\nimport os; os.system(x)\n',
    "s = '''\n'''\nimport os\nos.system(s)\n",
    "getattr(__import__('os'), 'system')(cmd)\n",
    'x = f"{__import__(\'os\').system(c)}"\n',
    "def f(a=__import__('os').system('id')):\n    pass\n",
    'if True:\n    import os\n  # dedent comment\n    os.system(x)\n',
    "x = 1 if a else __import__('subprocess').call(c, shell=True)\n",
  ];
  const both = (code: string) => {
    const fast = analyzePythonSync(code);
    const was = setFastPython(false);
    const slow = analyzePythonSync(code);
    setFastPython(was);
    return { fast, slow };
  };
  for (const code of dangerous) {
    const { fast, slow } = both(code);
    t.same(fast, slow, JSON.stringify(code));
    t.ok(fast.findings.some((f) => /^python\.(process|dangerous_call)\./.test(f.rule_id)), `found: ${JSON.stringify(code)}`);
  }
  // a raw string cannot end in one backslash: the rest of the line is inside the literal, nothing runs
  const inString = "x = r'\\'; import os; os.system(y) #'\n";
  const { fast, slow } = both(inString);
  t.same(fast, slow);
  t.equal(fast.findings.length, 0, 'the os.system is text inside a string');
});
