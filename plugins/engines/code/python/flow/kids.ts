import { type PyNode, namedChildren as fresh } from '../parser.js';

/**
 * Named children, memoised on the node (PyNode.kids): the interpreter walks the same statements
 * again for every loop pass, entry point and inlined call, and the filtered copy was a large share
 * of its garbage. Callers read the array and never change it.
 */
export function namedChildren(n: PyNode): PyNode[] {
  return (n.kids ??= fresh(n));
}
