import { Parser, type Tree } from 'web-tree-sitter';

/**
 * Direct calls into web-tree-sitter's wasm exports for the one hot loop, the tree copy. Every
 * getter of the public TreeCursor writes the cursor's four words into the wasm transfer buffer and
 * reads them back afterwards through emscripten's generic `setValue`/`getValue`; over a whole tree
 * that marshalling cost more than the parse itself (profile in docs/engines/code.md). The C side
 * keeps the cursor in that buffer anyway: a `goto_*` call reads it there and writes the moved
 * cursor back, and the numeric getters only read it, so a walk made of those calls alone needs no
 * marshalling at all. `checkRawWalk` compares this walk with the public API once per thread, so a
 * web-tree-sitter whose internals differ fails loudly at start-up instead of copying wrong trees.
 */
export interface RawCursor {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_node_has_error_wasm(tree: number): number;
}

const NEEDED: Array<keyof RawCursor> = [
  '_ts_tree_root_node_wasm', '_ts_tree_cursor_new_wasm', '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_goto_first_child_wasm', '_ts_tree_cursor_goto_next_sibling_wasm', '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm', '_ts_tree_cursor_current_field_id_wasm',
  '_ts_tree_cursor_start_index_wasm', '_ts_tree_cursor_end_index_wasm', '_ts_node_has_error_wasm',
];

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
  const missing = NEEDED.filter((k) => typeof mod[k] !== 'function');
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

/** Puts a fresh cursor on the tree's root in the transfer buffer; pair with `_ts_tree_cursor_delete_wasm`. */
export function openCursor(raw: RawCursor, tree: number): void {
  raw._ts_tree_root_node_wasm(tree);
  raw._ts_tree_cursor_new_wasm(tree);
}

type Visit = [typeId: number, fieldId: number, start: number, end: number, depth: number];

function rawWalk(raw: RawCursor, tree: Tree): Visit[] {
  const t = treeAddress(tree);
  const out: Visit[] = [];
  openCursor(raw, t);
  try {
    let depth = 0;
    for (;;) {
      out.push([raw._ts_tree_cursor_current_node_type_id_wasm(t), raw._ts_tree_cursor_current_field_id_wasm(t), raw._ts_tree_cursor_start_index_wasm(t), raw._ts_tree_cursor_end_index_wasm(t), depth]);
      if (raw._ts_tree_cursor_goto_first_child_wasm(t)) {
        depth++;
        continue;
      }
      while (!raw._ts_tree_cursor_goto_next_sibling_wasm(t)) {
        if (!raw._ts_tree_cursor_goto_parent_wasm(t)) return out;
        depth--;
      }
    }
  } finally {
    raw._ts_tree_cursor_delete_wasm(t);
  }
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

/** Throws unless the raw walk and the public TreeCursor see the same nodes, fields and offsets. */
export function checkRawWalk(raw: RawCursor, parser: Parser, sample = SAMPLE): void {
  const tree = parser.parse(sample);
  if (!tree) throw new Error('web-tree-sitter: self-check parse failed');
  try {
    const a = JSON.stringify([rootHasError(raw, treeAddress(tree)), rawWalk(raw, tree)]);
    const b = JSON.stringify([tree.rootNode.hasError, publicWalk(tree)]);
    if (a !== b) throw new Error('web-tree-sitter: direct cursor walk disagrees with the public TreeCursor');
  } finally {
    tree.delete();
  }
}
