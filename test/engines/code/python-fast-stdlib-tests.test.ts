import t from 'tap';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { checkStdlib } from '../../helpers/python-trees.js';

/** The other half of python-fast-stdlib.test.ts: the standard library's own test suites. */
t.test('the Python standard library\'s test suites: identical trees where accepted', async (t) => {
  await initPython();
  checkStdlib(t, true);
});
