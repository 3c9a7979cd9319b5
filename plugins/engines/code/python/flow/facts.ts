import type { PyNode } from '../parser.js';

/**
 * Results of a syntactic pass over one node (a function's writes and locals, a class's methods),
 * kept on the node for the life of its parse: a pass asked again for the same node answers from
 * here. On the node rather than in a module-level WeakMap, whose weak entries the garbage collector
 * must process on every cycle (see PyNode.kids).
 */
export function getFact<T>(n: PyNode, pass: string): T | undefined {
  return n.facts?.get(pass) as T | undefined;
}

export function hasFact(n: PyNode, pass: string): boolean {
  return !!n.facts?.has(pass);
}

export function setFact<T>(n: PyNode, pass: string, value: T): T {
  (n.facts ??= new Map()).set(pass, value);
  return value;
}
