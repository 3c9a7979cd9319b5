/**
 * The tree walk of the copy, read straight from wasm memory. Even with direct calls (ts-raw.ts),
 * moving tree-sitter's cursor cost about 0.2 µs per node: each step is a wasm call that unpacks the
 * cursor, rebuilds a child iterator and packs the cursor again, and a node needs five of them
 * (profile in docs/engines/code.md). This walk reads the same data tree-sitter's cursor reads (the
 * subtree records, the language's alias sequences and field maps) with typed-array loads and
 * applies the cursor's rules in JS: hidden nodes are transparent, an alias makes a hidden child
 * visible and renames it, a field is looked up at the node and then at its hidden ancestors up to
 * the nearest visible one, extras carry no field.
 *
 * The layouts below are tree-sitter's (lib/subtree.h, lib/tree.h, parser.h, ABI 15) on wasm32,
 * little-endian. `checkRawWalk` (ts-raw.ts) holds this walk to web-tree-sitter's public TreeCursor
 * once per thread, and test/engines/code/python-tree-copy does so on the corpus and awkward
 * inputs, so a web-tree-sitter whose memory layout differs fails at start-up instead of copying
 * wrong trees.
 */
export interface WasmHeap {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  HEAPU32: Uint32Array;
}

/** Receives the visible nodes in pre-order. */
export interface TreeVisitor {
  /**
   * `parent`: the node has visible children, which follow until the matching `leave()`. Returning
   * false ends the walk there (the copy's nesting limit).
   */
  enter(typeId: number, fieldId: number, start: number, end: number, parent: boolean): boolean;
  leave(): void;
}

// TSTree: { Subtree root (8 bytes); const TSLanguage *language; … }
const TREE_LANGUAGE = 8;
// TSLanguage (parser.h): u32 field_count @32, u16 max_alias_sequence_length @36, pointers from @40
const LANG_FIELD_COUNT = 32;
const LANG_MAX_ALIAS = 36;
const LANG_FIELD_SLICES = 64;
const LANG_FIELD_ENTRIES = 68;
const LANG_PUBLIC_SYMBOLS = 76;
const LANG_ALIAS_SEQUENCES = 84;
// SubtreeHeapData: Length padding @4, Length size @16 (bytes first), child_count @36, symbol @40,
// flag bits @44 (visible, named, extra), visible_child_count @48, production_id @66
const HEAP_PADDING = 4;
const HEAP_SIZE = 16;
const HEAP_CHILD_COUNT = 36;
const HEAP_SYMBOL = 40;
const HEAP_FLAGS = 44;
const HEAP_VISIBLE_CHILDREN = 48;
const HEAP_PRODUCTION = 66;
const SUBTREE = 8;
const ERROR_SYMBOL = 0xffff;

/** One subtree being iterated: where its children are and what the cursor would know about it. */
class Frames {
  children: number[] = [];
  count: number[] = [];
  index: number[] = [];
  structural: number[] = [];
  /** byte offset of the next child's start */
  pos: number[] = [];
  production: number[] = [];
  visible: boolean[] = [];
  /** for a hidden subtree: the field its visible descendants take when they have none of their own */
  chain: number[] = [];
  top = -1;

  push(p: number, pos: number, visible: boolean, chain: number, u16: Uint16Array, u32: Uint32Array): void {
    const i = ++this.top;
    const count = u32[(p + HEAP_CHILD_COUNT) >> 2];
    this.children[i] = p - count * SUBTREE;
    this.count[i] = count;
    this.index[i] = 0;
    this.structural[i] = 0;
    this.pos[i] = pos;
    this.production[i] = u16[(p + HEAP_PRODUCTION) >> 1];
    this.visible[i] = visible;
    this.chain[i] = chain;
  }
}

const frames = new Frames();

/** The first non-inherited field the parent's production gives the child at `structural`; 0 if none. */
function ownField(u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, lang: number, production: number, structural: number): number {
  if (u32[(lang + LANG_FIELD_COUNT) >> 2] === 0) return 0;
  const slice = u32[(lang + LANG_FIELD_SLICES) >> 2] + production * 4;
  const first = u16[slice >> 1];
  const length = u16[(slice + 2) >> 1];
  const entries = u32[(lang + LANG_FIELD_ENTRIES) >> 2];
  for (let k = first; k < first + length; k++) {
    const e = entries + k * 4;
    if (u8[e + 3] === 0 && u8[e + 2] === structural) return u16[e >> 1];
  }
  return 0;
}

/** Walks the visible nodes of the tree at wasm address `tree`, as a TreeCursor would, into `v`. */
export function walkTree(heap: WasmHeap, tree: number, v: TreeVisitor): void {
  const u8 = heap.HEAPU8;
  const u16 = heap.HEAPU16;
  const u32 = heap.HEAPU32;
  const lang = u32[(tree + TREE_LANGUAGE) >> 2];
  const publicSymbols = u32[(lang + LANG_PUBLIC_SYMBOLS) >> 2];
  const aliasSequences = u32[(lang + LANG_ALIAS_SEQUENCES) >> 2];
  const maxAlias = u16[(lang + LANG_MAX_ALIAS) >> 1];
  const publicSymbol = (s: number): number => (s === ERROR_SYMBOL ? s : u16[(publicSymbols + s * 2) >> 1]);

  // the root: always visible, no alias, no field; its position is its padding
  const f = frames;
  f.top = -1;
  // a real tree has fewer subtrees than the heap has 8-byte slots; a walk past that is reading
  // something other than a tree (a changed layout), and must end with an error, not loop
  let budget = u8.length >> 3;
  if (u8[tree] & 1) {
    const pos = u8[tree + 6];
    v.enter(publicSymbol(u8[tree + 1]), 0, pos >> 1, (pos + u8[tree + 7]) >> 1, false);
    return;
  } else {
    const p = u32[tree >> 2];
    const pos = u32[(p + HEAP_PADDING) >> 2];
    const count = u32[(p + HEAP_CHILD_COUNT) >> 2];
    const rootChildren = count > 0 && u32[(p + HEAP_VISIBLE_CHILDREN) >> 2] > 0;
    if (!v.enter(publicSymbol(u16[(p + HEAP_SYMBOL) >> 1]), 0, pos >> 1, (pos + u32[(p + HEAP_SIZE) >> 2]) >> 1, rootChildren)) return;
    if (rootChildren) f.push(p, pos, true, 0, u16, u32);
  }
  while (f.top >= 0) {
    const i = f.top;
    const index = f.index[i];
    if (index === f.count[i]) {
      f.top--;
      if (f.visible[i]) v.leave();
      continue;
    }
    if (--budget < 0) throw new Error('web-tree-sitter: the tree walk ran past the wasm heap (memory layout not as expected)');
    const slot = f.children[i] + index * SUBTREE;
    const pos = f.pos[i];
    let symbol: number, flags: number, size: number, p = 0, childCount = 0;
    if (u8[slot] & 1) {
      // inline leaf: flag bits shifted by the is_inline bit
      flags = u8[slot] >> 1;
      symbol = u8[slot + 1];
      size = u8[slot + 7];
    } else {
      p = u32[slot >> 2];
      flags = u8[p + HEAP_FLAGS];
      symbol = u16[(p + HEAP_SYMBOL) >> 1];
      size = u32[(p + HEAP_SIZE) >> 2];
      childCount = u32[(p + HEAP_CHILD_COUNT) >> 2];
    }
    // advance the iterator past this child and the next child's padding
    f.index[i] = index + 1;
    let next = pos + size;
    if (index + 1 < f.count[i]) {
      const ns = slot + SUBTREE;
      next += u8[ns] & 1 ? u8[ns + 6] : u32[(u32[ns >> 2] + HEAP_PADDING) >> 2];
    }
    f.pos[i] = next;
    const extra = (flags & 4) !== 0;
    const structural = f.structural[i];
    const production = f.production[i];
    let alias = 0;
    if (!extra) {
      f.structural[i] = structural + 1;
      if (production) alias = u16[(aliasSequences + (production * maxAlias + structural) * 2) >> 1];
    }
    const hasVisibleChildren = childCount > 0 && u32[(p + HEAP_VISIBLE_CHILDREN) >> 2] > 0;
    if ((flags & 1) !== 0 || alias !== 0) {
      const field = extra ? 0 : ownField(u8, u16, u32, lang, production, structural) || f.chain[i];
      if (!v.enter(publicSymbol(alias || symbol), field, pos >> 1, (pos + size) >> 1, hasVisibleChildren)) return;
      if (hasVisibleChildren) f.push(p, pos, true, 0, u16, u32);
    } else if (hasVisibleChildren) {
      const chain = extra ? 0 : ownField(u8, u16, u32, lang, production, structural) || f.chain[i];
      f.push(p, pos, false, chain, u16, u32);
    }
  }
}
