import t from 'tap';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { checkStdlib } from '../../helpers/python-trees.js';

/**
 * The fast Python parser against tree-sitter on real-world Python: the local standard library
 * (third-party site-packages excluded) when a python3 is installed; without one the test says so,
 * and the corpus and snippet comparison (python-fast-parser.test.ts) still runs. Split in two so
 * that each test file stays short: python-fast-stdlib-tests.test.ts compares the library's own
 * test suites.
 */
t.test('the Python standard library (without its tests): identical trees where accepted', async (t) => {
  await initPython();
  checkStdlib(t, false);
});
