import { createRequire } from 'node:module';
import { Parser, Language, type Tree } from 'web-tree-sitter';
import { type RawCursor, checkRawWalk, initRaw, rootHasError, treeAddress } from './ts-raw.js';
import { type TreeVisitor, walkTree } from './ts-mem.js';
import { fastParse } from './fast/index.js';
import { SAMPLE, sameTrees } from './fast/selfcheck.js';
import { LEAF, PyNode, type PyParse, Source } from './pynode.js';

export { PyNode, type PyParse } from './pynode.js';

/**
 * Python source → a plain JS tree. tree-sitter (wasm) was measured against @lezer/python on the
 * corpus (see docs/engines/code.md): faster, and its grammar has field names (`function:`,
 * `arguments:`, `left:`) that make the rules read like the language. The wasm tree is copied into
 * plain objects once, read straight from wasm memory (ts-mem.ts, held to the public API by
 * ts-raw.ts); names come from per-language caches and positions from a line table.
 */
interface Grammar {
  parser: Parser;
  raw: RawCursor;
  types: string[];
  named: boolean[];
  /** by type id: a Python-2-only statement */
  py2: boolean[];
  fields: Array<string | null>;
}

/**
 * The same string, internalised by V8 (a property key always is). Type and field names are compared
 * with literals (`n.type === 'call'`) all through the rules; two internalised strings compare by
 * pointer, while the names as decoded from wasm would be compared character by character.
 */
function intern<T extends string | null>(s: T): T {
  return s === null ? s : (Object.keys({ [s]: 0 })[0] as T);
}

let ready: Promise<Grammar> | null = null;
let grammar: Grammar | null = null;

/** Loads the wasm runtime and grammar once per thread. */
export function initPython(): Promise<Grammar> {
  if (!ready) {
    ready = (async () => {
      const raw = await initRaw();
      const wasm = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
      const lang = await Language.load(wasm);
      const parser = new Parser();
      parser.setLanguage(lang);
      const types: string[] = [];
      const named: boolean[] = [];
      for (let id = 0; id < lang.nodeTypeCount; id++) {
        types.push(intern(lang.nodeTypeForId(id) ?? `#${id}`));
        named.push(lang.nodeTypeIsNamed(id));
      }
      const fields: Array<string | null> = [null];
      for (let id = 1; id <= lang.fieldCount; id++) fields.push(intern(lang.fieldNameForId(id)));
      checkRawWalk(raw, parser);
      grammar = { parser, raw, types, named, py2: types.map((ty) => PY2_ONLY.has(ty)), fields };
      fastChecked = checkFastPath();
      return grammar;
    })();
    ready.catch(() => {
      ready = null; // a failed load is retried on the next request instead of poisoning the thread
    });
  }
  return ready;
}

/** Throws unless the walk read from wasm memory sees `code`'s tree as the public TreeCursor does (tests). */
export function checkDirectWalk(code: string): void {
  if (!grammar) throw new Error('python parser not initialised');
  checkRawWalk(grammar.raw, grammar.parser, code);
}

export function pythonReady(): boolean {
  return grammar !== null;
}

const PY2_ONLY = new Set(['print_statement', 'exec_statement']);
/**
 * Wall-clock budget for one parse. tree-sitter's error recovery can take seconds on pathological
 * input (200 KB of alternating quotes); cancelling keeps the worker healthy, and the answer is a
 * fail-closed BLOCKED instead of a killed thread.
 */
export const PARSE_BUDGET_MS = 1500;
/** CPython itself refuses expressions nested ~200 deep; past this the tree is not analysed (fails closed). */
export const MAX_DEPTH = 1000;

/** Slow path, only for trees tree-sitter marked as erroneous: the first ERROR or MISSING node. */
function firstError(tree: Tree): { line: number; column: number; message: string } {
  const cursor = tree.walk();
  try {
    for (;;) {
      if (cursor.nodeIsMissing || cursor.nodeType === 'ERROR') {
        const p = cursor.startPosition;
        return { line: p.row + 1, column: p.column + 1, message: cursor.nodeIsMissing ? `missing ${JSON.stringify(cursor.nodeType)}` : 'syntax error' };
      }
      if (cursor.gotoFirstChild() || cursor.gotoNextSibling()) continue;
      let up = true;
      while (up) {
        if (!cursor.gotoParent()) return { line: 1, column: 1, message: 'syntax error' };
        if (cursor.gotoNextSibling()) up = false;
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Copies the wasm tree into PyNodes, fed node by node by the memory walk (ts-mem.ts). Anonymous
 * tokens without a field (keywords, punctuation: `def`, `(`, `:`) are not copied: no rule reads
 * them. Anonymous tokens with a field (`operator: '+'`) are kept, and so is an anonymous node with
 * children (an aliased rule).
 */
class TreeCopy implements TreeVisitor {
  readonly nodes: PyNode[] = [];
  root: PyNode | null = null;
  error: PyParse['error'] = null;
  private readonly parents: PyNode[] = [];
  private py2At: PyNode | null = null;

  constructor(
    private readonly g: Grammar,
    private readonly src: Source,
  ) {}

  enter(typeId: number, fieldId: number, start: number, end: number, parent: boolean): boolean {
    const g = this.g;
    if (!parent && !fieldId && !g.named[typeId]) return true;
    const parents = this.parents;
    const up = parents.length ? parents[parents.length - 1] : null;
    const node = new PyNode(g.types[typeId], g.fields[fieldId] ?? null, g.named[typeId], this.src, start, end, up);
    this.nodes.push(node);
    if (up) {
      if (up.children === LEAF) up.children = [node];
      else up.children.push(node);
    } else this.root = node;
    if (g.py2[typeId] && !this.py2At) {
      this.py2At = node;
      this.error = { line: node.row + 1, column: node.col + 1, message: `Python 2 ${node.type.replace('_', ' ')} is not valid Python 3` };
    }
    if (parent) {
      if (parents.length + 1 > MAX_DEPTH) {
        this.error = { line: node.row + 1, column: node.col + 1, message: `nesting deeper than ${MAX_DEPTH} levels` };
        this.root = null;
        return false;
      }
      parents.push(node);
    }
    return true;
  }

  leave(): void {
    this.parents.pop();
  }
}

function copyTree(t: number, g: Grammar, src: Source): PyParse {
  const copy = new TreeCopy(g, src);
  walkTree(g.raw, t, copy);
  return copy.root ? { root: copy.root, error: copy.error, nodes: copy.nodes } : { root: null, nodes: [], error: copy.error };
}

/**
 * The fast parser (fast/index.ts) answers for the Python it reproduces tree-sitter's tree for.
 * `fastChecked` is this thread's start-up check (false: the two parsers differ on the sample, so the
 * fast path stays off for the thread's life); `fastWanted` is the operator's switch,
 * `plugin_config.code.python_fast_parser`, which each task carries (docs/engines/code.md).
 */
let fastChecked = true;
let fastWanted = true;

/** Turns the fast path on or off for this thread (the operator's switch, tests); returns the previous setting. */
export function setFastPython(on: boolean): boolean {
  const was = fastWanted;
  fastWanted = on;
  return was;
}

/** The start-up check of the fast path (fast/selfcheck.ts); false turns the path off. */
function checkFastPath(): boolean {
  return sameTrees(fastParse(SAMPLE, new Source(SAMPLE), MAX_DEPTH), parseTreeSitter(SAMPLE));
}

/** Whether this thread answers with the fast path (on unless switched off or its start-up check failed). */
export function fastPythonOn(): boolean {
  return fastWanted && fastChecked;
}

/** Parses with the already-initialised parser (call `initPython()` first). */
export function parsePythonSync(code: string): PyParse {
  if (!grammar) throw new Error('python parser not initialised');
  if (fastWanted && fastChecked) {
    const parsed = fastParse(code, new Source(code), MAX_DEPTH);
    if (parsed) return parsed;
  }
  return parseTreeSitter(code);
}

/** tree-sitter's answer, whatever the fast path would say (the tests compare the two) */
export function parseTreeSitter(code: string): PyParse {
  if (!grammar) throw new Error('python parser not initialised');
  const deadline = performance.now() + PARSE_BUDGET_MS;
  const tree = grammar.parser.parse(code, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) {
    grammar.parser.reset(); // a cancelled parse would otherwise be resumed by the next call
    return { root: null, nodes: [], limit: true, error: { line: 1, column: 1, message: `parsing exceeded ${PARSE_BUDGET_MS} ms` } };
  }
  try {
    const t = treeAddress(tree);
    if (rootHasError(grammar.raw, t)) return { root: null, nodes: [], error: firstError(tree) };
    // CPython's compile-time rejections are checked by the analysis walk (compile-check.ts)
    return copyTree(t, grammar, new Source(code));
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

/**
 * The named children but comments, memoised on the node (PyNode.kids; the rules, the resolver and the
 * flow analysis each ask for the same nodes' again, and each filtered copy was garbage). Callers read the
 * array and never change it.
 */
export function namedChildren(n: PyNode): PyNode[] {
  return (n.kids ??= n.children.filter((c) => c.named && c.type !== 'comment'));
}
