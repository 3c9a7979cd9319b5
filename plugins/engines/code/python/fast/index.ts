import { Unsupported, tokenize } from './lexer.js';
import { StmtParser } from './stmt.js';
import { type N, placeComments } from './tree.js';

/**
 * The fast path of the Python parser: a hand-written parser for the part of Python whose
 * tree-sitter-python tree it reproduces exactly, node for node (type, field, named, offsets,
 * comments). Everything else — any construct it does not implement, any syntax error, any layout
 * where tree-sitter's placement is quirky — is `null`, and parser.ts parses with tree-sitter.
 * The equality is held by test/engines/code/python-fast-parser.test.ts (corpus, every test snippet,
 * the stdlib when present, and a seeded mutation fuzz).
 */
export function fastTree(code: string): N | null {
  try {
    return fastTreeStrict(code);
  } catch {
    // Unsupported, or a fault of this parser: either way tree-sitter answers (tests use the strict form)
    return null;
  }
}

/** As `fastTree`, but only `Unsupported` becomes null: any other fault throws (tests). */
export function fastTreeStrict(code: string): N | null {
  try {
    const t = tokenize(code);
    const p = new StmtParser(code, t);
    const root = p.module();
    placeComments(root, t.comments);
    return root;
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

export type { N } from './tree.js';
