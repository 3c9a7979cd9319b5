/**
 * The plain tree both Python parsers produce (tree-sitter's copy in parser.ts, the fast parser in
 * fast/): the rules read only this.
 */
/** The children of every leaf: one shared, frozen array instead of an empty one per node. */
export const LEAF: PyNode[] = Object.freeze([]) as unknown as PyNode[];

/** node type → small number (PyNode.kind), given out as types are first seen; a grammar has a few hundred */
const TYPE_IDS = new Map<string, number>();
/**
 * Types are the grammar's and the fast parser's, never the input's, so the map stays small; past this
 * bound (a parser change that let input name types) new types share 0, which no typeSet holds: the
 * tables are built when their modules load, before any type seen later.
 */
const MAX_TYPES = 4096;

export function typeId(type: string): number {
  let id = TYPE_IDS.get(type);
  if (id === undefined) {
    if (TYPE_IDS.size >= MAX_TYPES) return 0;
    TYPE_IDS.set(type, (id = TYPE_IDS.size + 1));
  }
  return id;
}

/**
 * A set of node types as a table indexed by PyNode.kind. A pass over every node of a module tests
 * each node's type against its cases: a string switch there costs tens of nanoseconds per node
 * (a module has thousands), one read of this table a few.
 */
export function typeSet(types: Iterable<string>): Uint8Array {
  const ids = [...types].map(typeId);
  const table = new Uint8Array(Math.max(0, ...ids) + 1);
  for (const id of ids) table[id] = 1;
  return table;
}

export class PyNode {
  /** set only by the tree copy (replaced on the first child, since leaves share LEAF) */
  children: PyNode[] = LEAF;
  /**
   * The named children but comments, once asked (parser.ts namedChildren): the rules, the resolver and
   * the flow analysis walk the same nodes again and again (every loop pass, entry point and inlined
   * call). A field, not a WeakMap: thousands of weak entries per analysis made the garbage collector's
   * ephemeron work a quarter of the engine's time.
   */
  kids: PyNode[] | null = null;
  /** what the flow analysis's syntactic passes found about this node, by pass (flow/facts.ts) */
  facts: Map<string, unknown> | null = null;
  /** the type's number (typeId), for typeSet tables */
  readonly kind: number;
  /** a short node's text once sliced (see `text`) */
  private shortText: string | undefined = undefined;
  constructor(
    readonly type: string,
    /** field name under the parent (`function`, `arguments`, `name`, …), or null */
    readonly field: string | null,
    readonly named: boolean,
    private readonly src: Source,
    /** offsets in UTF-16 code units */
    readonly start: number,
    readonly end: number,
    readonly parent: PyNode | null,
  ) {
    this.kind = typeId(type);
  }

  /**
   * Source text, sliced on demand: storing every node's would cost O(size × depth) memory. A short
   * node's (an identifier's, mostly: the passes ask for each one's text about four times) is kept
   * once sliced, so the passes share one string and its hash, which V8 computes once per string, for
   * their map lookups.
   */
  get text(): string {
    if (this.shortText !== undefined) return this.shortText;
    const t = this.src.code.slice(this.start, this.end);
    if (this.end - this.start <= 64) this.shortText = t;
    return t;
  }

  /** 0-based row */
  get row(): number {
    return this.src.rowOf(this.start);
  }

  /** 0-based column in UTF-16 code units */
  get col(): number {
    return this.start - this.lineStart;
  }

  /** offset of the first character of the line the node starts on */
  get lineStart(): number {
    return this.src.lineStarts[this.src.rowOf(this.start)];
  }
}

export class Source {
  readonly lineStarts: number[] = [0];
  constructor(readonly code: string) {
    for (let i = code.indexOf('\n'); i !== -1; i = code.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  /** the last offset asked and its row: a node's row and its line's start are asked one after the other */
  private lastIndex = -1;
  private lastRow = 0;

  rowOf(index: number): number {
    if (index === this.lastIndex) return this.lastRow;
    this.lastIndex = index;
    return (this.lastRow = this.search(index));
  }

  private search(index: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

export interface PyParse {
  root: PyNode | null;
  /** parsing was cancelled at its time budget (pathological input): nothing is known */
  limit?: boolean;
  /** first ERROR / MISSING node, or a Python-2-only statement (fails closed: Python 3 would not run it) */
  error: { line: number; column: number; message: string } | null;
  /**
   * every copied node in document order (pre-order), so the resolver and the rules visit the
   * tree as one flat loop instead of each walking it with a stack
   */
  nodes: PyNode[];
}
