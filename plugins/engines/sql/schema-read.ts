import { resolveDialect, type DialectInfo } from './dialects.js';
import { gateSchemaDdl } from './ddl-gate.js';
import { Lru } from './cache.js';
import { nameOf, parseSql, type Node } from './parse.js';
import { addColumn, schemaDatabase, tablesOf, type Schema, type Table } from './schema-db.js';
import { declaredColumns, markViewCredentials, storedViewBodies, type ViewBody } from './view-credentials.js';
import { sha256Hex } from '../../../core/json/canonical.js';

export type { Schema } from './schema-db.js';

/**
 * Output columns of a SELECT used as a view body (best effort: `*` expands known tables and
 * keeps which of their columns are credentials).
 */
function viewColumns(sel: Node, schema: Schema): Table {
  const t: Table = { columns: new Set(), credentials: new Set() };
  for (const c of Array.isArray(sel?.columns) ? sel.columns : []) {
    const e = c?.expr;
    if (c?.as) addColumn(t, String(nameOf(c.as)));
    else if (e?.type === 'column_ref' && nameOf(e.column) === '*') {
      for (const f of sel.from ?? []) {
        const src = schema.get(String(f.table).toLowerCase());
        for (const x of src?.columns ?? []) t.columns.add(x);
        for (const x of src?.credentials ?? []) t.credentials.add(x);
      }
    } else if (e?.type === 'column_ref') addColumn(t, String(nameOf(e.column)));
  }
  return t;
}

/** `sha256` (of the DDL text) is bound into every proof_ref for this schema; computed once with the reading. */
export type SchemaResult = { ok: true; schema: Schema; source: 'node-sql-parser' | 'sqlite'; sha256: string } | { ok: false; message: string };

const SQLITE = resolveDialect('sqlite')!;


function fromAst(stmts: Node[], d: DialectInfo): { ok: true; schema: Schema } | { ok: false; message: string } {
  const schema: Schema = new Map();
  const views: ViewBody[] = [];
  for (const s of stmts) {
    if (s.type !== 'create') return { ok: false, message: `schema_ddl may only hold CREATE statements, found ${String(s.type).toUpperCase()}` };
    if (s.keyword === 'table') {
      const name = String(s.table?.[0]?.table ?? '').toLowerCase();
      const t: Table = { columns: new Set(), credentials: new Set() };
      for (const def of s.create_definitions ?? []) {
        if (def?.resource === 'column') addColumn(t, String(nameOf(def.column?.column)));
      }
      if (s.as || s.query_expr) return { ok: false, message: 'CREATE TABLE … AS SELECT is not a schema definition' };
      schema.set(name, t);
    } else if (s.keyword === 'view') {
      const name = String(s.view?.view ?? nameOf(s.view) ?? '').toLowerCase();
      const t = viewColumns(s.select, schema);
      schema.set(name, t);
      const tree = { select: s.select ?? null, declared: declaredColumns(s) };
      views.push({ name, text: null, columns: [...t.columns], tree: () => tree });
    } else if (s.keyword !== 'index') {
      return { ok: false, message: `CREATE ${String(s.keyword ?? '').toUpperCase()} is not accepted in schema_ddl (tables, indexes and views only)` };
    }
    // indexes add no names to resolve
  }
  if (schema.size === 0) return { ok: false, message: 'schema_ddl defines no table' };
  markViewCredentials(schema, views, d);
  return { ok: true, schema };
}

const schemas = new Lru<SchemaResult>(32);

export function clearSchemaCache(): void {
  schemas.clear();
}

/** Cached per worker by dialect and DDL text; a Schema is only ever read. */
export async function parseSchema(ddl: string, d: DialectInfo): Promise<SchemaResult> {
  const key = d.name + '\u0000' + ddl;
  const hit = schemas.get(key);
  if (hit) return hit;
  const r = await readSchema(ddl, d);
  const entry: SchemaResult = r.ok ? { ...r, sha256: sha256Hex(ddl) } : r;
  schemas.set(key, entry);
  return entry;
}

type Read = { ok: true; schema: Schema; source: 'node-sql-parser' | 'sqlite' } | { ok: false; message: string };

/** SQLite's reading, from the same database the dry run compiles against (schema-db.ts). */
async function viaSqlite(ddl: string): Promise<Read> {
  const db = await schemaDatabase(ddl);
  if (!db.ok) return db;
  const t = tablesOf(db.db);
  if (!t.ok) return t;
  markViewCredentials(t.schema, storedViewBodies(t.views, SQLITE), SQLITE);
  return { ok: true, schema: t.schema, source: 'sqlite' };
}

/**
 * The schema is read once per dialect. For `sqlite` SQLite itself is the reader: the dry run
 * needs the schema's database anyway, and reading tables and columns back from it costs a
 * fraction of a grammar parse of the DDL. node-sql-parser reads it for the other dialects, and
 * for sqlite only when SQLite's reading failed (then the dry run reports SQLite's error). Its
 * grammars miss some valid DDL (the mysql grammar rejects column-level REFERENCES, for
 * instance); SQLite's reading is the fallback for every other dialect.
 */
async function readSchema(ddl: string, d: DialectInfo): Promise<Read> {
  // the schema is never a query: refused before node-sql-parser or SQLite read it (ddl-gate.ts)
  const refused = gateSchemaDdl(ddl, d);
  if (refused) return { ok: false, message: refused };
  const first = d.name === 'sqlite' ? await viaSqlite(ddl) : null;
  if (first?.ok) return first;
  const r = parseSql(ddl, d);
  if (r.ok) {
    const s = fromAst(r.statements, d);
    return s.ok ? { ok: true, schema: s.schema, source: 'node-sql-parser' } : s;
  }
  const second = first ?? await viaSqlite(ddl);
  return second.ok ? second : { ok: false, message: d.name === 'sqlite' ? second.message : r.message };
}
