import { type PyNode, namedChildren as fresh } from '../parser.js';

/**
 * Named children, memoised per node: the interpreter walks the same statements again for every
 * loop pass, entry point and inlined call, and the filtered copy was a large share of its garbage.
 * Callers read the array and never change it.
 */
const memo = new WeakMap<PyNode, PyNode[]>();
export function namedChildren(n: PyNode): PyNode[] {
  let got = memo.get(n);
  if (!got) memo.set(n, (got = fresh(n)));
  return got;
}
