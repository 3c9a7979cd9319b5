import type { DialectInfo } from './dialects.js';
import { tokenize } from './tokens.js';

/**
 * The text node-sql-parser is given, rewritten so that its grammar reads the query the way the
 * database will. The rules must judge the database's reading: where the two lexers disagree on the
 * extent of a literal, the parser would see a harmless string where the database runs code.
 *
 * Backslashes: the sqlite, postgresql and transactsql grammars take `\'` inside '…' as an escaped
 * quote, but SQLite, PostgreSQL (standard_conforming_strings, on since 9.1) and SQL Server end the
 * literal at that quote. `name = 'a\'; DROP TABLE users; SELECT '` was one SELECT to the parser and
 * admitted; the database runs the DROP. Doubling every backslash inside such a literal makes the
 * grammar end it where the database does (`\\` is one backslash to the grammar, and the database's
 * literal keeps its text). PostgreSQL's E'…' strings do honour backslashes and are left alone.
 * The grammars read `\"` inside a double-quoted identifier the same way (`SELECT "x\" FROM users;
 * DROP TABLE users; -- y"` was one column reference to them), so those are doubled too.
 *
 * Dashes: MySQL and MariaDB start a `--` comment only before whitespace or a control character
 * (tokens.ts); their grammars start one at any `--`, so `id = 1 --1 OR 1=1` was `id = 1` to the
 * parser and a tautology to MySQL. A space between the two signs gives the grammar MySQL's reading.
 */
export function parserText(sql: string, d: DialectInfo): string {
  const backslashes = !d.backslashEscapes && sql.includes('\\');
  const dashes = d.dashCommentNeedsSpace && sql.includes('--');
  if (!backslashes && !dashes) return sql;
  let out = '';
  let at = 0;
  for (const t of tokenize(sql, d)) {
    if (dashes && t.kind === 'punct' && t.text === '-' && sql[t.end] === '-') {
      // MySQL's `--` before a non-space is two minus signs; the grammar would start a comment
      out += sql.slice(at, t.end) + ' ';
      at = t.end;
      continue;
    }
    if (!backslashes || !t.text.includes('\\') || !(t.kind === 'string' ? plainQuoted(t.text, d) : t.kind === 'ident' && t.text[0] === '"')) continue;
    out += sql.slice(at, t.start) + t.text.replace(/\\/g, '\\\\');
    at = t.end;
  }
  return at === 0 ? sql : out + sql.slice(at);
}

/** '…', N'…', X'…': the literals whose backslashes the database keeps as text */
function plainQuoted(text: string, d: DialectInfo): boolean {
  if (text[0] === "'") return true;
  if (text[1] !== "'") return false;
  return !(d.dollarQuotes && (text[0] === 'E' || text[0] === 'e'));
}

/**
 * The mysql and mariadb grammars give XOR the precedence of an arithmetic operator; MySQL's XOR
 * binds looser than comparisons, NOT and AND. `id = 5 XOR 1` is `id = (5 XOR 1)` in the tree and
 * `NOT (id = 5)` in MySQL. A XOR written without parentheses under a comparison, an arithmetic
 * operator, AND or NOT was grouped differently from MySQL's reading: the query is not read.
 */
export function misreadXor(statements: unknown[], d: DialectInfo): boolean {
  if (d.name !== 'mysql' && d.name !== 'mariadb') return false;
  const seen = (n: unknown, parentOp: string | null): boolean => {
    if (!n || typeof n !== 'object') return false;
    if (Array.isArray(n)) return n.some((x) => seen(x, null));
    const o = n as Record<string, unknown>;
    const op = o.type === 'binary_expr' || o.type === 'unary_expr' ? String(o.operator).toUpperCase() : null;
    if (o.type === 'binary_expr' && op === 'XOR' && !o.parentheses && parentOp !== null && !['OR', 'XOR', '||'].includes(parentOp)) return true;
    for (const k of Object.keys(o)) {
      if (k === 'tableList' || k === 'columnList') continue;
      const v = o[k];
      if (v && typeof v === 'object' && seen(v, op !== null && (k === 'left' || k === 'right' || k === 'expr') ? op : null)) return true;
    }
    return false;
  };
  return statements.some((s) => seen(s, null));
}
