import type { DialectInfo } from './dialects.js';
import { statementsOf, tokenize, type Token } from './tokens.js';

/**
 * What schema_ddl may be: definitions, never a query (issue 12 item 6). Decided on lexer tokens
 * (literals and comments have exact extents) before the DDL reaches either node-sql-parser's
 * reading or SQLite's, so `CREATE TABLE t AS WITH RECURSIVE …` is refused before anything runs:
 * - `CREATE [TEMP] TABLE [IF NOT EXISTS] name ( column definitions ) [options]`: no `AS` before or
 *   after the column list, and no SELECT/VALUES anywhere in it;
 * - `CREATE [UNIQUE] INDEX … ON table ( … ) [WHERE …]`: no SELECT/VALUES;
 * - `CREATE [TEMP] VIEW name [( … )] AS SELECT …`: stored, never run (the dry run only compiles
 *   queries that read it, under EXPLAIN QUERY PLAN).
 * Everything else (triggers, virtual tables, `WITH …`, any non-CREATE statement) is refused.
 */
const QUERY_WORDS = new Set(['SELECT', 'VALUES']);

function word(t: Token | undefined): string {
  return t && t.kind === 'word' ? t.text.toUpperCase() : '';
}

function hasQueryWord(tokens: Token[]): boolean {
  return tokens.some((t) => QUERY_WORDS.has(word(t)));
}

/** Index of the `)` closing the `(` at `open`, or -1. */
function closing(st: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < st.length; i++) {
    if (st[i].kind !== 'punct') continue;
    if (st[i].text === '(') depth++;
    else if (st[i].text === ')' && --depth === 0) return i;
  }
  return -1;
}

function checkStatement(st: Token[]): string | null {
  if (word(st[0]) !== 'CREATE') return `schema_ddl may only hold CREATE TABLE, CREATE INDEX and CREATE VIEW statements, found ${word(st[0]) || 'something else'}`;
  let i = 1;
  if (word(st[i]) === 'TEMP' || word(st[i]) === 'TEMPORARY') i++;
  if (word(st[i]) === 'UNIQUE' && word(st[i + 1]) === 'INDEX') i++;
  const kind = word(st[i]);
  if (kind === 'TABLE') {
    const open = st.findIndex((t, k) => k > i && t.kind === 'punct' && t.text === '(');
    if (open < 0) return 'CREATE TABLE needs column definitions';
    const head = st.slice(i + 1, open);
    if (head.some((t) => word(t) === 'AS')) return 'CREATE TABLE … AS is a query, not a schema definition';
    const close = closing(st, open);
    if (close < 0) return 'CREATE TABLE column list is not closed';
    const tail = st.slice(close + 1);
    if (tail.some((t) => word(t) === 'AS')) return 'CREATE TABLE … AS is a query, not a schema definition';
    if (hasQueryWord(st)) return 'a CREATE TABLE in schema_ddl may not contain a query';
    return null;
  }
  if (kind === 'INDEX') return hasQueryWord(st) ? 'a CREATE INDEX in schema_ddl may not contain a query' : null;
  if (kind === 'VIEW') return null;
  return `CREATE ${kind || '…'} is not accepted in schema_ddl (tables, indexes and views only)`;
}

/** null when the DDL only defines tables, indexes and views; otherwise why it is refused. */
export function gateSchemaDdl(ddl: string, d: DialectInfo): string | null {
  const stmts = statementsOf(tokenize(ddl, d));
  for (const st of stmts) {
    const why = checkStatement(st);
    if (why) return why;
  }
  return null;
}

/**
 * Caps for every SQLite database built from schema_ddl: its pages (so no statement can fill it)
 * and, once per wasm instance, SQLite's heap. With the gate above nothing is inserted; these bound
 * what a gap in the gate could cost (time too: filling 8 MB takes well under a second).
 */
export const SCHEMA_DB_MAX_PAGES = 2048;

interface Db {
  exec(sql: string): Array<{ columns: string[]; values: unknown[][] }>;
}

export function capDatabase(db: Db): void {
  db.exec(`PRAGMA max_page_count = ${SCHEMA_DB_MAX_PAGES}`);
}

/** True when any table holds a row: such a database is never cached or used. One probe for all tables. */
export function holdsRows(db: Db): boolean {
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? [];
  const probes = tables.map(([name]) => `EXISTS (SELECT 1 FROM "${String(name).replace(/"/g, '""')}")`);
  // in batches: SQLite caps an expression's depth at 1000 and an OR chain is as deep as it is long
  for (let i = 0; i < probes.length; i += PROBES_PER_STATEMENT) {
    if (Number(db.exec(`SELECT ${probes.slice(i, i + PROBES_PER_STATEMENT).join(' OR ')}`)[0]?.values[0]?.[0] ?? 0) !== 0) return true;
  }
  return false;
}
const PROBES_PER_STATEMENT = 100;
