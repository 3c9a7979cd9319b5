import { type PyNode, field } from './parser.js';
import { typeSet } from './pynode.js';

/**
 * Rejections CPython makes at compile time that tree-sitter's grammar lets through. Code CPython
 * refuses never runs, so a "safe" answer about it would be a statement about a program that does
 * not exist; these fail closed as parse errors instead. Checked on the copied tree in one walk:
 * - a block with no statement (`def f():` followed only by a comment): "expected an indented block";
 * - indentation: module statements at column 0, the statements of one block (and an `else`/`elif`/
 *   `except`/`finally` and its statement) at the same indentation, measured with tabs as 8 and as 1
 *   columns (CPython's TabError rule), each block deeper than the line that opens it;
 * - `return` outside a function, `yield` outside a function or lambda, `break`/`continue` outside a
 *   loop, `nonlocal` at module level.
 */
export interface CompileError {
  line: number;
  column: number;
  message: string;
}

const CLAUSES = new Set(['else_clause', 'elif_clause', 'except_clause', 'except_group_clause', 'finally_clause', 'case_clause']);
const SCOPES = new Set(['function_definition', 'class_definition', 'lambda', 'module']);
/** the node types check() looks at: every other node passes with one table read */
const CHECKED = typeSet(['module', 'block', ...CLAUSES, 'return_statement', 'yield', 'break_statement', 'continue_statement', 'nonlocal_statement']);

/**
 * Indentation of a line: [columns with tabs as 8, columns with tabs as 1] of the spaces and tabs that
 * open it (up to `to`), and the offset of the first other character. A form feed resets the count
 * (CPython counts only what follows the last one).
 */
function lineIndentOf(code: string, from: number, to = code.length): { cols: [number, number]; first: number } {
  let t8 = 0;
  let t1 = 0;
  let i = from;
  for (; i < to; i++) {
    const ch = code.charCodeAt(i);
    if (ch === 0x20) {
      t8++;
      t1++;
    } else if (ch === 0x09) {
      t8 = (Math.floor(t8 / 8) + 1) * 8;
      t1++;
    } else if (ch === 0x0c) {
      t8 = 0;
      t1 = 0;
    } else break;
  }
  return { cols: [t8, t1], first: i };
}

function err(n: PyNode, message: string): CompileError {
  return { line: n.row + 1, column: n.col + 1, message };
}

function statements(n: PyNode): PyNode[] {
  return n.children.filter((c) => c.named && c.type !== 'comment' && !CLAUSES.has(c.type));
}

/**
 * Fed node by node by the analysis walk (python/analyze.ts), so the check costs no walk of its own;
 * `error` is the first rejection found.
 */
export class CompileChecker {
  error: CompileError | null = null;
  /** by row, made when first asked */
  private readonly lines: Array<{ cols: [number, number]; first: number } | undefined> = [];

  constructor(private readonly code: string) {}

  /** Indentation of the line a node starts on, or null when something else precedes it on that line. */
  private indent(n: PyNode): [number, number] | null {
    const row = n.row;
    let l = this.lines[row];
    if (!l) this.lines[row] = l = lineIndentOf(this.code, n.lineStart);
    if (l.first === n.start) return l.cols;
    // a node inside the opening whitespace (zero-width) counts what precedes it
    return n.start < l.first ? lineIndentOf(this.code, n.lineStart, n.start).cols : null;
  }

  /** the indentation of the line holding `n`'s statement (walks up to the node that starts the line) */
  private lineIndent(n: PyNode): [number, number] {
    for (let c: PyNode | null = n; c; c = c.parent) {
      const i = this.indent(c);
      if (i) return i;
    }
    return [0, 0];
  }

  visit(n: PyNode): void {
    if (CHECKED[n.kind] && !this.error) this.error = this.check(n);
  }

  private check(n: PyNode): CompileError | null {
    if (n.type === 'module' || n.type === 'block') {
      // a match statement's block holds its case clauses, each an indented line of its own
      const stmts = n.parent?.type === 'match_statement' ? n.children.filter((c) => c.type === 'case_clause') : statements(n);
      if (n.type === 'block' && stmts.length === 0) return err(n.parent ?? n, 'expected an indented block');
      let level: [number, number] | null = n.type === 'module' ? [0, 0] : null;
      const outer = n.type === 'block' && n.parent ? this.lineIndent(n.parent) : null;
      for (const s of stmts) {
        const i = this.indent(s);
        if (!i) continue; // after `;` or on the line of the colon
        if (!level) {
          level = i;
          if (outer && (i[0] <= outer[0] || i[1] <= outer[1])) return err(s, 'expected an indented block');
        } else if (n.type === 'module' && (i[0] !== 0 || i[1] !== 0)) {
          return err(s, 'unexpected indent');
        } else if (i[0] !== level[0] || i[1] !== level[1]) {
          return err(s, i[0] !== level[0] && i[1] !== level[1] ? 'unindent does not match any outer indentation level' : 'inconsistent use of tabs and spaces in indentation');
        }
      }
    } else if (CLAUSES.has(n.type) && n.parent && n.type !== 'case_clause') {
      const i = this.indent(n);
      const owner = this.lineIndent(n.parent);
      if (i && (i[0] !== owner[0] || i[1] !== owner[1])) return err(n, 'unindent does not match any outer indentation level');
    } else if (n.type === 'return_statement' || (n.type === 'yield' && n.named)) {
      for (let p = n.parent; p; p = p.parent) {
        if (p.type === 'function_definition' || (p.type === 'lambda' && n.type === 'yield')) return null;
        if (SCOPES.has(p.type)) break;
      }
      return err(n, `'${n.type === 'yield' ? 'yield' : 'return'}' outside function`);
    } else if (n.type === 'break_statement' || n.type === 'continue_statement') {
      let child: PyNode = n;
      for (let p = n.parent; p; child = p, p = p.parent) {
        if ((p.type === 'for_statement' || p.type === 'while_statement') && field(p, 'body') === child) return null;
        if (SCOPES.has(p.type)) break;
      }
      return err(n, `'${n.type === 'break_statement' ? 'break' : 'continue'}' outside loop`);
    } else if (n.type === 'nonlocal_statement') {
      for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition') return null;
      return err(n, 'nonlocal declaration not allowed at module level');
    }
    return null;
  }
}
