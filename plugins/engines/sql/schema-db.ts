import { sqlJs, type SqlJsDatabase } from './sqljs.js';
import { Lru } from './cache.js';
import { capDatabase, holdsRows } from './ddl-gate.js';
import { isCredentialColumn } from './catalog.js';

/**
 * A table or view: its lower-cased column names, and those that hold a credential. Which columns
 * are credentials is decided on the name as the DDL spells it (`passwordHash` is two words; once
 * lower-cased it is one), so a reference spelt `passwordhash` and a `*` still find it.
 */
export interface Table {
  columns: Set<string>;
  credentials: Set<string>;
  /** a view returns a credential in a column its reader could not name: `*` over it reads one */
  hidden?: boolean;
}

/** lower-cased table name → its table */
export type Schema = Map<string, Table>;

/** add a column as the DDL (or SQLite) spells it */
export function addColumn(t: Table, spelled: string): void {
  const col = spelled.toLowerCase();
  t.columns.add(col);
  if (isCredentialColumn(spelled)) t.credentials.add(col);
}

export type SchemaDatabase = { ok: true; db: SqlJsDatabase } | { ok: false; message: string };

/**
 * One in-memory SQLite database per distinct schema_ddl, kept per worker. It only ever holds the
 * schema: SQLite reads the tables and columns from it (schema-read.ts) and the dry run compiles queries
 * against it under EXPLAIN QUERY PLAN, which never runs them. Callers pass DDL that has cleared
 * the gate in ddl-gate.ts.
 */
const dbs = new Lru<SchemaDatabase>(8, (e) => { if (e.ok) e.db.close(); });

export function clearDatabases(): void {
  dbs.clear();
}

export async function schemaDatabase(ddl: string): Promise<SchemaDatabase> {
  const hit = dbs.get(ddl);
  if (hit !== undefined) return hit;
  const SQL = await sqlJs();
  const db = new SQL.Database();
  let entry: SchemaDatabase = { ok: true, db };
  try {
    capDatabase(db);
    db.exec(ddl);
    // a database holding rows is never kept or planned against (the DDL gate should make this unreachable)
    if (holdsRows(db)) {
      db.close();
      entry = { ok: false, message: 'schema_ddl filled a table with rows' };
    }
  } catch (e) {
    db.close();
    entry = { ok: false, message: firstLine(e) };
  }
  dbs.set(ddl, entry);
  return entry;
}

/** a view as SQLite stores it: its CREATE statement and its columns in order, as SQLite names them */
export interface StoredView { name: string; sql: string; columns: string[] }

/**
 * Tables and views with their columns, as SQLite itself resolves them (table_xinfo also lists
 * generated columns, which a query may read), and each view's text and column order. SQLite's own
 * `sqlite_*` tables (sqlite_sequence after AUTOINCREMENT, for one) are left out: they are catalogs,
 * never schema the query may use. A view whose body names something missing makes SQLite throw
 * here: the message is returned.
 */
export function tablesOf(db: SqlJsDatabase): { ok: true; schema: Schema; views: StoredView[] } | { ok: false; message: string } {
  try {
    const rows = db.exec(
      "SELECT m.name, c.name, c.cid, m.type, m.sql FROM (SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table','view') " +
      "UNION ALL SELECT name, type, sql FROM sqlite_temp_schema WHERE type IN ('table','view')) AS m " +
      "JOIN pragma_table_xinfo(m.name) AS c WHERE m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )[0]?.values ?? [];
    const schema: Schema = new Map();
    const views = new Map<string, { sql: string; columns: Array<[number, string]> }>();
    for (const [table, column, cid, type, sql] of rows) {
      const key = String(table).toLowerCase();
      let t = schema.get(key);
      if (!t) schema.set(key, (t = { columns: new Set(), credentials: new Set() }));
      addColumn(t, String(column));
      if (type === 'view') {
        let v = views.get(key);
        if (!v) views.set(key, (v = { sql: String(sql), columns: [] }));
        v.columns.push([Number(cid), String(column)]);
      }
    }
    if (schema.size === 0) return { ok: false, message: 'schema_ddl defines no table' };
    const stored = [...views].map(([name, v]) => ({ name, sql: v.sql, columns: v.columns.sort((x, y) => x[0] - y[0]).map((c) => c[1]) }));
    return { ok: true, schema, views: stored };
  } catch (e) {
    return { ok: false, message: firstLine(e) };
  }
}

export function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0].slice(0, 300);
}
