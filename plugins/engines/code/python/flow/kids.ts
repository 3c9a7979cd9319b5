/**
 * The flow analysis reads named children through here; parser.ts memoises them on the node for every
 * pass (PyNode.kids).
 */
export { namedChildren } from '../parser.js';
