import { unsupported } from './lexer.js';

/**
 * The fast parser's tree before it becomes PyNodes: built bottom-up (a node's field is known only
 * when its parent takes it), then comments are placed and the PyNodes made in one pre-order pass.
 */
export class N {
  field: string | null = null;
  constructor(
    readonly type: string,
    readonly named: boolean,
    public start: number,
    public end: number,
    readonly kids: N[],
  ) {}
}

export function node(type: string, kids: N[], start = kids[0].start, end = kids[kids.length - 1].end): N {
  return new N(type, true, start, end, kids);
}

export function leaf(type: string, start: number, end: number): N {
  return new N(type, true, start, end, []);
}

/** An anonymous token kept because it has a field (`operator: '+'`), as the tree copy keeps it. */
export function token(type: string, field: string, start: number, end: number): N {
  const n = new N(type, false, start, end, []);
  n.field = field;
  return n;
}

export function withField<T extends N>(n: T, field: string): T {
  n.field = field;
  return n;
}

/**
 * Puts each comment where tree-sitter puts an extra: inside the deepest node that has tokens on
 * both sides of it, i.e. whose span contains it (zero-width NEWLINE/INDENT/DEDENT tokens included:
 * the lexer places them, and the statement parser extends block spans to them).
 */
export function placeComments(root: N, comments: number[]): void {
  for (let k = 0; k < comments.length; k += 2) {
    const s = comments[k];
    const e = comments[k + 1];
    let n = root;
    if (s < n.start || e > n.end) unsupported('comment outside the root');
    let at = 0;
    for (;;) {
      const kids = n.kids;
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
    n.kids.splice(at, 0, leaf('comment', s, e));
  }
}
