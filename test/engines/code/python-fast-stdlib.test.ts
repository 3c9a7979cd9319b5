import t from 'tap';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { checkAll, stdlibDir, stdlibFiles } from '../../helpers/python-trees.js';

/**
 * The fast Python parser against tree-sitter on real-world Python: every file of the local
 * standard library (third-party site-packages excluded), when a python3 is installed. Without one
 * the test says so; the corpus and snippet comparison (python-fast-parser.test.ts) always runs.
 */
t.test('the Python standard library: identical trees where accepted', async (t) => {
  await initPython();
  const dir = stdlibDir();
  if (!dir) {
    t.comment('stdlib: no python3 on this machine, its standard library was NOT compared');
    t.pass('nothing to compare here');
    return;
  }
  const files = stdlibFiles(dir).filter((f) => !relative(dir, f).split(sep).includes('site-packages'));
  const inputs = files.map((f): [string, string] => [relative(dir, f), readFileSync(f, 'utf8')]);
  t.comment(`stdlib: ${inputs.length} files under ${dir}`);
  t.ok(checkAll(t, 'stdlib', inputs) > 0, 'some of the standard library takes the fast path');
});
