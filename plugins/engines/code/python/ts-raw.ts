import { Parser, type Tree } from 'web-tree-sitter';
import { type TreeVisitor, type WasmHeap, walkTree } from './ts-mem.js';

/**
 * What the Python tree copy uses of web-tree-sitter beyond its public API: two wasm exports (the
 * root's error flag without building a Node) and the wasm memory, which the copy reads directly
 * (ts-mem.ts). The public TreeCursor marshals the cursor through emscripten's generic
 * `setValue`/`getValue` on every getter, and even direct cursor calls cost ~0.2 µs per node; over a
 * whole tree that was a third of an operation (profile in docs/engines/code.md). `checkRawWalk`
 * compares the memory walk with the public API once per thread, so a web-tree-sitter whose
 * internals differ fails loudly at start-up instead of copying wrong trees.
 */
export interface RawCursor extends WasmHeap {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
}

const NEEDED: Array<keyof RawCursor> = ['_ts_tree_root_node_wasm', '_ts_node_has_error_wasm'];
const VIEWS: Array<keyof WasmHeap> = ['HEAPU8', 'HEAPU16', 'HEAPU32'];

let captured: RawCursor | null = null;

/**
 * Initialises web-tree-sitter and returns its wasm exports. Emscripten adopts the options object
 * passed to `Parser.init` as its module object, so the exports appear on it; this is the only place
 * in the process that initialises web-tree-sitter.
 */
export async function initRaw(): Promise<RawCursor> {
  if (captured) return captured;
  const mod: Record<string, unknown> = {};
  await Parser.init(mod);
  const missing = [...NEEDED.filter((k) => typeof mod[k] !== 'function'), ...VIEWS.filter((k) => !ArrayBuffer.isView(mod[k]))];
  if (missing.length) throw new Error(`web-tree-sitter: wasm exports not reachable (${missing.join(', ')}); was it initialised elsewhere first?`);
  captured = mod as unknown as RawCursor;
  return captured;
}

/** The wasm address of a tree (the first internal slot of web-tree-sitter's Tree). */
export function treeAddress(tree: Tree): number {
  const address = (tree as unknown as { 0: number })[0];
  if (typeof address !== 'number' || address === 0) throw new Error('web-tree-sitter: tree has no wasm address');
  return address;
}

/** Whether the tree holds an ERROR or MISSING node (`tree.rootNode.hasError` without building a Node). */
export function rootHasError(raw: RawCursor, tree: number): boolean {
  raw._ts_tree_root_node_wasm(tree);
  return raw._ts_node_has_error_wasm(tree) !== 0;
}

type Visit = [typeId: number, fieldId: number, start: number, end: number, depth: number];

/** The memory walk as the check compares it: every visible node with its depth. */
function memoryWalk(raw: RawCursor, tree: Tree): Visit[] {
  const out: Visit[] = [];
  let depth = 0;
  const visitor: TreeVisitor = {
    enter(typeId, fieldId, start, end, parent) {
      out.push([typeId, fieldId, start, end, depth]);
      if (parent) depth++;
      return true;
    },
    leave() {
      depth--;
    },
  };
  walkTree(raw, treeAddress(tree), visitor);
  return out;
}

function publicWalk(tree: Tree): Visit[] {
  const out: Visit[] = [];
  const c = tree.walk();
  try {
    let depth = 0;
    for (;;) {
      out.push([c.nodeTypeId, c.currentFieldId, c.startIndex, c.endIndex, depth]);
      if (c.gotoFirstChild()) {
        depth++;
        continue;
      }
      while (!c.gotoNextSibling()) {
        if (!c.gotoParent()) return out;
        depth--;
      }
    }
  } finally {
    c.delete();
  }
}

const SAMPLE = 'import os as o\nx = f"a{b!r}" + "\\u00e9t\\xe9" # é\nclass C:\n    def m(self, *a, k=1):\n        return o.system(a[0], shell=k)\n';

/** Throws unless the memory walk and the public TreeCursor see the same nodes, fields and offsets. */
export function checkRawWalk(raw: RawCursor, parser: Parser, sample = SAMPLE): void {
  const tree = parser.parse(sample);
  if (!tree) throw new Error('web-tree-sitter: self-check parse failed');
  try {
    const a = JSON.stringify([rootHasError(raw, treeAddress(tree)), memoryWalk(raw, tree)]);
    const b = JSON.stringify([tree.rootNode.hasError, publicWalk(tree)]);
    if (a !== b) throw new Error('web-tree-sitter: the tree read from wasm memory disagrees with the public TreeCursor');
  } finally {
    tree.delete();
  }
}
