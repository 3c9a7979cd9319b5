import t from 'tap';
import { corpusLines } from '../../../../bench/harness.js';
import { analyzePython } from '../../../../plugins/engines/code/analyze.js';
import { checkDirectWalk, initPython } from '../../../../plugins/engines/code/python/parser.js';
import { checkRawWalk } from '../../../../plugins/engines/code/python/ts-raw.js';

/**
 * The Python tree is copied by reading web-tree-sitter's wasm memory (python/ts-mem.ts), bypassing
 * its public TreeCursor. These tests hold the two walks to the same nodes, fields and offsets on
 * every corpus line and on inputs chosen for the awkward cases (hidden rules, aliases, extras in
 * the middle of an expression, inherited fields, multi-token operators, erroneous trees), so an
 * upgrade of web-tree-sitter that changes its internals fails here rather than copying wrong trees.
 */
const AWKWARD = [
  '',
  '\n\n',
  '# only a comment\n',
  'x = "é" + "\\u00e9" + f"{a!r:>{w}}"\n',
  's = """multi\nline""" \'\'\'and\'\'\'\n',
  'print "py2"\n',
  'def f(:\n    pass\n',
  'if x:\n\ty = 1\n        z = 2\n',
  'x = [' + '('.repeat(40) + '1' + ')'.repeat(40) + ']\n',
  'λ = 𝔢𝔳𝔞𝔩(data)\n',
  'async def f():\n    async with a as b:\n        await c\n    return [i async for i in d]\n',
  'match p:\n    case {"k": [1, *rest]} if rest:\n        pass\n    case _:\n        pass\n',
  'x = (a  # a comment inside the expression\n     + b)\ny = c \\\n    if d else e\n',
  'if a not in b and c is not d or not e < f <= g:\n    pass\n',
  'def f(a, /, b=1, *, c: int = 2, **kw) -> "T":\n    global g\n    return lambda x=a: (yield)\n',
  '@decorator(arg)\nclass C(Base, metaclass=M):\n    x: int = 1\n    def m(self): ...\n',
  'type Alias[T] = list[T]\nprint(*xs, sep="", **kw)\n',
  'd = {k: v for k, v in items if (n := len(k))}\ns = {*a, *b}\nt = a[1:2, ::3]\n',
  'try:\n    pass\nexcept* (A, B) as e:\n    raise X from e\nfinally:\n    del q\n',
  'with (open(a) as f, open(b) as g):\n    exec "code"\n',
];

t.test('the walk read from wasm memory agrees with the public TreeCursor', async (t) => {
  await initPython();
  for (const line of corpusLines('code.jsonl')) t.doesNotThrow(() => checkDirectWalk(line.code), line.id);
  for (const code of AWKWARD) t.doesNotThrow(() => checkDirectWalk(code), JSON.stringify(code.slice(0, 40)));
});

t.test('the start-up check refuses a memory layout other than the one the walk assumes', async (t) => {
  const { raw, parser } = await initPython();
  const code = 'import os\nos.system(cmd)  # c\n';
  t.doesNotThrow(() => checkRawWalk(raw, parser, code), 'the real layout passes');
  // every 32-bit field read one word further on: what a moved struct member would look like
  const shifted = { ...raw, HEAPU32: new Uint32Array(raw.HEAPU32.buffer, 4) };
  t.throws(() => checkRawWalk(shifted, parser, code), /^web-tree-sitter: /);
  const moved16 = { ...raw, HEAPU16: new Uint16Array(raw.HEAPU16.buffer, 2) };
  t.throws(() => checkRawWalk(moved16, parser, code), /^web-tree-sitter: /);
});

t.test('the copied tree still carries what the rules read: positions, fields, text', async (t) => {
  const a = await analyzePython('import os\n\n# é\nx = 1; os.system(cmd)\n');
  const f = a.findings.find((x) => x.rule_id === 'python.process.shell_injection');
  t.ok(f, 'the call is found through its fields (function: attribute, arguments)');
  t.equal(f?.line, 4);
  t.equal(f?.column, 8, 'column counts UTF-16 code units from the line start');
});
