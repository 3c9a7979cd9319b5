import t from 'tap';
import { initPython } from '../../../plugins/engines/code/python/parser.js';
import { checkStdlib } from '../../helpers/python-trees.js';

/** Part 3 of 3 of the standard-library comparison (see python-fast-stdlib.test.ts). */
t.test('the Python standard library, part 3 of 3: identical trees where accepted', async (t) => {
  await initPython();
  checkStdlib(t, 2, 3);
});
