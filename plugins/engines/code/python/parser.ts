import { createRequire } from 'node:module';
import { Parser, Language } from 'web-tree-sitter';

/**
 * Python source → a plain, immutable JS tree. tree-sitter (wasm) was measured against @lezer/python
 * on the corpus (see docs/engines/code.md): faster, and its grammar has field names (`function:`,
 * `arguments:`, `left:`) that make the rules read like the language. The wasm tree is copied into
 * plain objects once, with a cursor, so the rules never cross the wasm boundary node by node and
 * the wasm memory is freed before any rule runs.
 */
export class PyNode {
  readonly children: PyNode[] = [];
  constructor(
    readonly type: string,
    /** field name under the parent (`function`, `arguments`, `name`, …), or null */
    readonly field: string | null,
    readonly named: boolean,
    /** 0-based row and UTF-16 column */
    readonly row: number,
    readonly col: number,
    private readonly source: string,
    private readonly start: number,
    private readonly end: number,
    readonly parent: PyNode | null,
  ) {}

  /** Source text, sliced on demand: storing it per node would cost O(size × depth) memory. */
  get text(): string {
    return this.source.slice(this.start, this.end);
  }
}

export interface PyParse {
  root: PyNode | null;
  /** first ERROR / MISSING node, or a Python-2-only statement (fails closed: Python 3 would not run it) */
  error: { line: number; column: number; message: string } | null;
}

let ready: Promise<Parser> | null = null;
let parser: Parser | null = null;

/** Loads the wasm runtime and grammar once per thread. */
export function initPython(): Promise<Parser> {
  if (!ready) {
    ready = (async () => {
      await Parser.init();
      const wasm = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
      const lang = await Language.load(wasm);
      const p = new Parser();
      p.setLanguage(lang);
      parser = p;
      return p;
    })();
    ready.catch(() => {
      ready = null; // a failed load is retried on the next request instead of poisoning the thread
    });
  }
  return ready;
}

export function pythonReady(): boolean {
  return parser !== null;
}

const PY2_ONLY = new Set(['print_statement', 'exec_statement']);
/** CPython itself refuses expressions nested ~200 deep; past this the tree is not analysed (fails closed). */
export const MAX_DEPTH = 1000;

/** Parses with the already-initialised parser (call `initPython()` first). */
export function parsePythonSync(code: string): PyParse {
  if (!parser) throw new Error('python parser not initialised');
  const tree = parser.parse(code);
  if (!tree) return { root: null, error: { line: 1, column: 1, message: 'parser returned no tree' } };
  try {
    const cursor = tree.walk();
    let error: PyParse['error'] = null;
    const note = (node: PyNode, message: string) => {
      if (!error) error = { line: node.row + 1, column: node.col + 1, message };
    };
    // Iterative copy: a recursive one would overflow the stack on deeply nested input.
    const make = (parent: PyNode | null): PyNode => {
      const node = new PyNode(
        cursor.nodeType,
        cursor.currentFieldName,
        cursor.nodeIsNamed,
        cursor.startPosition.row,
        cursor.startPosition.column,
        code,
        cursor.startIndex,
        cursor.endIndex,
        parent,
      );
      if (cursor.nodeIsMissing) note(node, `missing ${JSON.stringify(node.type)}`);
      else if (node.type === 'ERROR') note(node, 'syntax error');
      else if (PY2_ONLY.has(node.type)) note(node, `Python 2 ${node.type.replace('_', ' ')} is not valid Python 3`);
      if (parent) parent.children.push(node);
      return node;
    };
    const root = make(null);
    let current = root;
    let depth = 0;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        depth++;
        if (depth > MAX_DEPTH) {
          note(current, `nesting deeper than ${MAX_DEPTH} levels`);
          break;
        }
        current = make(current);
        continue;
      }
      let moved = false;
      while (!moved) {
        if (cursor.gotoNextSibling()) {
          current = make(current.parent);
          moved = true;
        } else if (depth > 0 && cursor.gotoParent()) {
          depth--;
          current = current.parent as PyNode;
        } else break;
      }
      if (!moved) break;
    }
    cursor.delete();
    if (!error && tree.rootNode.hasError) error = { line: 1, column: 1, message: 'syntax error' };
    return { root, error };
  } finally {
    tree.delete();
  }
}

export function field(n: PyNode, name: string): PyNode | null {
  for (const c of n.children) if (c.field === name) return c;
  return null;
}

export function fields(n: PyNode, name: string): PyNode[] {
  return n.children.filter((c) => c.field === name);
}

export function namedChildren(n: PyNode): PyNode[] {
  return n.children.filter((c) => c.named && c.type !== 'comment');
}
