import { LEAF, PyNode, type Source } from '../pynode.js';
import { unsupported } from './lexer.js';

/**
 * The fast parser builds PyNodes directly, bottom-up: a node's field is known only when its parent
 * takes it, and its parent only at the end, so both are written after construction (before any
 * reader sees the tree); `finish` then places the comments and lists the nodes in pre-order.
 */
export type N = PyNode;

type Writable = { field: string | null; parent: PyNode | null };

/** the source the nodes being built belong to (parsing is synchronous: one at a time per thread) */
let src: Source;

export function useSource(s: Source): void {
  src = s;
}

export function node(type: string, kids: N[], start = kids[0].start, end = kids[kids.length - 1].end): N {
  const n = new PyNode(type, null, true, src, start, end, null);
  if (kids.length) n.children = kids;
  return n;
}

export function leaf(type: string, start: number, end: number): N {
  return new PyNode(type, null, true, src, start, end, null);
}

/** An anonymous token kept because it has a field (`operator: '+'`), as the tree copy keeps it. */
export function token(type: string, field: string, start: number, end: number): N {
  return new PyNode(type, field, false, src, start, end, null);
}

export function withField<T extends N>(n: T, field: string): T {
  (n as unknown as Writable).field = field;
  return n;
}

/**
 * Puts each comment or line continuation where tree-sitter puts an extra: inside the deepest node that has tokens on
 * both sides of it, i.e. whose span contains it (zero-width NEWLINE/INDENT/DEDENT tokens included:
 * the lexer places them, and the statement parser extends block spans to them).
 */
export function placeExtras(root: N, comments: number[], type: 'comment' | 'line_continuation'): void {
  for (let k = 0; k < comments.length; k += 2) {
    const s = comments[k];
    const e = comments[k + 1];
    let n = root;
    if (s < n.start || e > n.end) unsupported('comment outside the root');
    let at = 0;
    for (;;) {
      const kids = n.children;
      at = kids.length;
      let inner: N | null = null;
      for (let i = 0; i < kids.length; i++) {
        const c = kids[i];
        if (c.start <= s && e <= c.end) {
          inner = c;
          break;
        }
        if (c.start >= e) {
          at = i;
          break;
        }
        if (c.end > s) unsupported('comment overlaps a node');
      }
      if (!inner) break;
      n = inner;
    }
    if (n.children === LEAF) n.children = [];
    n.children.splice(at, 0, leaf(type, s, e));
  }
}

/** Links parents and lists the nodes in pre-order; false past `maxDepth` (tree-sitter's copy reports it). */
export function link(root: N, nodes: N[], maxDepth: number): boolean {
  const stack: N[] = [root];
  const depths: number[] = [1];
  while (stack.length) {
    const n = stack.pop() as N;
    const d = depths.pop() as number;
    if (d > maxDepth) return false;
    nodes.push(n);
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) {
      (kids[i] as unknown as Writable).parent = n;
      stack.push(kids[i]);
      depths.push(d + 1);
    }
  }
  return true;
}
