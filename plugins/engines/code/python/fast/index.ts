import type { PyParse, Source } from '../pynode.js';
import { Unsupported, tokenize } from './lexer.js';
import { StmtParser } from './stmt.js';
import { type N, link, placeExtras, useSource } from './tree.js';

/**
 * The fast path of the Python parser: a hand-written parser for the part of Python whose
 * tree-sitter-python tree it reproduces exactly, node for node (type, field, named, offsets,
 * comments). Everything else — any construct it does not implement, any syntax error, any layout
 * where tree-sitter's placement is quirky — is `null`, and parser.ts parses with tree-sitter.
 * The equality is held by test/engines/code/python-fast-*.test.ts (corpus, every test snippet,
 * the stdlib when present, and a seeded mutation fuzz); docs/engines/code.md has the argument.
 */
export function fastParse(code: string, src: Source, maxDepth: number): PyParse | null {
  try {
    return fastParseStrict(code, src, maxDepth);
  } catch {
    // Unsupported, or a fault of this parser: either way tree-sitter answers (tests use the strict form)
    return null;
  }
}

/** As `fastParse`, but only `Unsupported` becomes null: any other fault throws (tests). */
export function fastParseStrict(code: string, src: Source, maxDepth: number): PyParse | null {
  const root = fastTreeStrict(code, src);
  if (!root) return null;
  const nodes: N[] = [];
  return link(root, nodes, maxDepth) ? { root, error: null, nodes } : null;
}

function fastTreeStrict(code: string, src: Source): N | null {
  try {
    useSource(src);
    const t = tokenize(code);
    const root = new StmtParser(code, t).module();
    placeExtras(root, t.comments, 'comment');
    placeExtras(root, t.continuations, 'line_continuation');
    return root;
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}
