import type { DialectInfo } from './dialects.js';

/**
 * A lexer that knows where string literals, quoted identifiers and comments begin and end. The
 * parser discards comments, so the comment rules and the parse-failure fallback decide on these
 * tokens: text inside a literal is never read as SQL, and a comment is seen with its exact extent.
 */
export type TokenKind = 'word' | 'string' | 'ident' | 'number' | 'comment' | 'punct';

export interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
  /** comments: line (`--`, `#`) or block; strings/comments: whether the closing delimiter was found */
  style?: 'line' | 'block';
  terminated?: boolean;
}

function quoted(sql: string, i: number, q: string, backslash: boolean): { end: number; terminated: boolean } {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (backslash && c === '\\') { j += 2; continue; }
    if (c === q) {
      if (sql[j + 1] === q) { j += 2; continue; }
      return { end: j + 1, terminated: true };
    }
    j++;
  }
  return { end: sql.length, terminated: false };
}

/** exactly the characters JavaScript's `\s` matches */
export function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
/** `[A-Za-z_\u0080-\uffff]` */
const wordStart = (c: number): boolean => isLetter(c) || c === 0x5f || c >= 0x80;
/** `[A-Za-z0-9_$\u0080-\uffff]` */
const wordPart = (c: number): boolean => wordStart(c) || isDigit(c) || c === 0x24;
/** `[0-9A-Za-z_.]` */
const numberPart = (c: number): boolean => isDigit(c) || isLetter(c) || c === 0x5f || c === 0x2e;
const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;

/**
 * MySQL starts a `--` comment only when a space, a control character or the end follows: `1 --1`
 * is 1 - -1 there, and `id = 1 --1 OR 1=1` an OR that is true for every row.
 */
function dashComment(sql: string, after: number, d: DialectInfo): boolean {
  if (!d.dashCommentNeedsSpace || after >= sql.length) return true;
  const c = sql.charCodeAt(after);
  return c <= 0x20 || c === 0x7f;
}

/**
 * Where a nesting block comment opened before `from` closes (the index of its last `*\/`), or -1.
 * PostgreSQL reads `/* /* *\/ ' *\/` as one comment; ending it at the first `*\/` would start a
 * string at the quote and hide a `--` that follows from the comment rules.
 */
function nestedEnd(sql: string, from: number): number {
  let depth = 1;
  let k = from;
  while (k < sql.length - 1) {
    if (sql[k] === '/' && sql[k + 1] === '*') { depth++; k += 2; continue; }
    if (sql[k] === '*' && sql[k + 1] === '/') { if (--depth === 0) return k; k += 2; continue; }
    k++;
  }
  return -1;
}

/** Character classes are tested on UTF-16 code units, without a regular expression per character. */
export function tokenize(sql: string, d: DialectInfo): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const code = sql.charCodeAt(i);
    if (isSpace(code)) { i++; continue; }
    const start = i;
    if ((c === '-' && sql[i + 1] === '-' && dashComment(sql, i + 2, d)) || (c === '#' && d.hashComments)) {
      let j = sql.indexOf('\n', i);
      if (j < 0) j = n;
      out.push({ kind: 'comment', text: sql.slice(i, j), start, end: j, style: 'line', terminated: true });
      i = j;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const j = d.nestedComments ? nestedEnd(sql, i + 2) : sql.indexOf('*/', i + 2);
      const end = j < 0 ? n : j + 2;
      out.push({ kind: 'comment', text: sql.slice(i, end), start, end, style: 'block', terminated: j >= 0 });
      i = end;
      continue;
    }
    if (c === "'" || ((c === 'E' || c === 'e' || c === 'N' || c === 'n' || c === 'X' || c === 'x') && sql[i + 1] === "'")) {
      const q = c === "'" ? i : i + 1;
      // PostgreSQL E'' strings honour backslashes even though plain strings do not.
      const bs = d.backslashEscapes || ((c === 'E' || c === 'e') && d.dollarQuotes);
      const r = quoted(sql, q, "'", bs);
      out.push({ kind: 'string', text: sql.slice(i, r.end), start, end: r.end, terminated: r.terminated });
      i = r.end;
      continue;
    }
    if (c === '"' || c === '`') {
      // MySQL-family double quotes are strings; elsewhere they quote identifiers.
      const r = quoted(sql, i, c, d.backslashEscapes && c === '"');
      const kind: TokenKind = c === '"' && d.backslashEscapes ? 'string' : 'ident';
      out.push({ kind, text: sql.slice(i, r.end), start, end: r.end, terminated: r.terminated });
      i = r.end;
      continue;
    }
    if (c === '[' && d.bracketIdents) {
      const j = sql.indexOf(']', i + 1);
      const end = j < 0 ? n : j + 1;
      out.push({ kind: 'ident', text: sql.slice(i, end), start, end, terminated: j >= 0 });
      i = end;
      continue;
    }
    if (c === '$' && d.dollarQuotes) {
      DOLLAR_TAG.lastIndex = i;
      const m = DOLLAR_TAG.exec(sql);
      if (m) {
        const j = sql.indexOf(m[0], i + m[0].length);
        const end = j < 0 ? n : j + m[0].length;
        out.push({ kind: 'string', text: sql.slice(i, end), start, end, terminated: j >= 0 });
        i = end;
        continue;
      }
    }
    if (wordStart(code)) {
      let j = i + 1;
      while (j < n && wordPart(sql.charCodeAt(j))) j++;
      out.push({ kind: 'word', text: sql.slice(i, j), start, end: j });
      i = j;
      continue;
    }
    if ((isDigit(code) || code === 0x2e) && isDigit(i + 1 < n ? sql.charCodeAt(i + 1) : code)) {
      let j = i + 1;
      while (j < n && numberPart(sql.charCodeAt(j))) j++;
      out.push({ kind: 'number', text: sql.slice(i, j), start, end: j });
      i = j;
      continue;
    }
    out.push({ kind: 'punct', text: c, start, end: i + 1 });
    i++;
  }
  return out;
}

/** False only when `tokenize` cannot produce a comment token: no `--`, no `/*`, no `#` where `#` starts one. */
export function mayHoldComment(sql: string, d: DialectInfo): boolean {
  return sql.includes('--') || sql.includes('/*') || (d.hashComments && sql.includes('#'));
}

/** The code tokens (no comments), split into statements at top-level `;`. Empty statements dropped. */
export function statementsOf(tokens: Token[]): Token[][] {
  const stmts: Token[][] = [];
  let cur: Token[] = [];
  for (const t of tokens) {
    if (t.kind === 'comment') continue;
    if (t.kind === 'punct' && t.text === ';') {
      if (cur.length) stmts.push(cur);
      cur = [];
      continue;
    }
    cur.push(t);
  }
  if (cur.length) stmts.push(cur);
  return stmts;
}
