import t from 'tap';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { checkStdlib } from '../../helpers/python-trees.js';

/**
 * The fast Python parser against tree-sitter on real-world Python: the local standard library
 * (third-party site-packages excluded) when a python3 is installed; without one the test says so,
 * and the corpus and snippet comparison (python-fast-parser.test.ts) still runs. In three test
 * files (python-fast-stdlib.test.ts, -2, -3), a third of the files each, so that each stays short.
 */
t.test('the Python standard library, part 1 of 3: identical trees where accepted', async (t) => {
  await initPython();
  checkStdlib(t, 0, 3);
});
