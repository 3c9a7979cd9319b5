import t from 'tap';
import { corpusLines } from '../../../bench/harness.js';
import { analyzePython } from '../../../plugins/engines/code/index.js';
import { checkDirectWalk, initPython } from '../../../plugins/engines/code/python/parser.js';

/**
 * The Python tree is copied out of wasm with direct calls into web-tree-sitter's exports
 * (python/ts-raw.ts), bypassing its public TreeCursor. These tests hold the two walks to the same
 * nodes, fields and offsets on every corpus line and on inputs chosen for the awkward cases, so an
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
];

t.test('direct wasm walk agrees with the public TreeCursor', async (t) => {
  await initPython();
  for (const line of corpusLines('code.jsonl')) t.doesNotThrow(() => checkDirectWalk(line.code), line.id);
  for (const code of AWKWARD) t.doesNotThrow(() => checkDirectWalk(code), JSON.stringify(code.slice(0, 40)));
});

t.test('the copied tree still carries what the rules read: positions, fields, text', async (t) => {
  const a = await analyzePython('import os\n\n# é\nx = 1; os.system(cmd)\n');
  const f = a.findings.find((x) => x.rule_id === 'python.process.shell_injection');
  t.ok(f, 'the call is found through its fields (function: attribute, arguments)');
  t.equal(f?.line, 4);
  t.equal(f?.column, 8, 'column counts UTF-16 code units from the line start');
});
