import { createRequire } from 'node:module';
import type { DialectInfo, ParserDatabase } from './dialects.js';
import { gateSchemaDdl } from './ddl-gate.js';
import { parserText } from './reading.js';
import { Lru } from './cache.js';
import { schemaDatabase, tablesOf, type Schema } from './schema-db.js';
import { sha256Hex } from '../../../core/canonical.js';

export type { Schema } from './schema-db.js';

/** node-sql-parser AST nodes are plain JSON; we read them structurally. */
export type Node = Record<string, any>;

interface DialectParser { astify(sql: string, opt: { database: string }): unknown }

const require = createRequire(import.meta.url);
const parsers = new Map<ParserDatabase, DialectParser>();

/**
 * node-sql-parser's build for one dialect, loaded on first use: the package's main module holds
 * all fourteen grammars (≈ 70 ms of CPU to load in every thread that verifies SQL), one grammar
 * ≈ 10 ms. A build parses only its own dialect and refuses any other `database`.
 */
function parserFor(db: ParserDatabase): DialectParser {
  let p = parsers.get(db);
  if (!p) {
    const mod = require(`node-sql-parser/build/${db}`) as { Parser: new () => DialectParser };
    p = new mod.Parser();
    parsers.set(db, p);
  }
  return p;
}

export interface ParseOk { ok: true; statements: Node[] }
export interface ParseFail { ok: false; message: string; line?: number; column?: number; tooDeep?: true }

/** A JavaScript stack overflow: the text nests deeper than a recursive reader (parser or rule walk) can follow. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

export const TOO_DEEP = 'nesting too deep to read (parenthesised expressions, operators or subqueries)';

function failure(e: unknown): ParseFail {
  if (isStackOverflow(e)) return { ok: false, message: TOO_DEEP, tooDeep: true };
  const err = e as { message?: string; found?: unknown; location?: { start?: { line?: number; column?: number } } };
  const loc = err?.location?.start;
  // The generated parser's message lists every expected token; report where and what instead.
  const msg = loc
    ? `syntax error at line ${loc.line}, column ${loc.column}: unexpected ${err.found == null ? 'end of input' : JSON.stringify(String(err.found))}`
    : String(err?.message ?? 'parse error').split('\n')[0].slice(0, 200);
  return { ok: false, message: msg, line: loc?.line, column: loc?.column };
}

export function parseSql(sql: string, d: DialectInfo): ParseOk | ParseFail {
  try {
    const ast = parserFor(d.parserDb).astify(parserText(sql, d), { database: d.parserDb });
    const list = (Array.isArray(ast) ? ast : [ast]).filter((s): s is Node => !!s && typeof s === 'object');
    if (list.length === 0) return { ok: false, message: 'no statement' };
    return { ok: true, statements: list };
  } catch (e) {
    return failure(e);
  }
}

export function nameOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const o = v as Node;
    if (o.expr && typeof o.expr === 'object') return nameOf(o.expr.value ?? o.expr);
    if (typeof o.value === 'string') return o.value;
  }
  return null;
}

/** Output column names of a SELECT used as a view body (best effort: `*` expands known tables). */
function viewColumns(sel: Node, schema: Schema): Set<string> {
  const cols = new Set<string>();
  for (const c of Array.isArray(sel?.columns) ? sel.columns : []) {
    const e = c?.expr;
    if (c?.as) cols.add(String(nameOf(c.as)).toLowerCase());
    else if (e?.type === 'column_ref' && nameOf(e.column) === '*') {
      for (const f of sel.from ?? []) for (const x of schema.get(String(f.table).toLowerCase()) ?? []) cols.add(x);
    } else if (e?.type === 'column_ref') cols.add(String(nameOf(e.column)).toLowerCase());
  }
  return cols;
}

/** `sha256` (of the DDL text) is bound into every proof_ref for this schema; computed once with the reading. */
export type SchemaResult = { ok: true; schema: Schema; source: 'node-sql-parser' | 'sqlite'; sha256: string } | { ok: false; message: string };

function fromAst(stmts: Node[]): { ok: true; schema: Schema } | { ok: false; message: string } {
  const schema: Schema = new Map();
  for (const s of stmts) {
    if (s.type !== 'create') return { ok: false, message: `schema_ddl may only hold CREATE statements, found ${String(s.type).toUpperCase()}` };
    if (s.keyword === 'table') {
      const name = String(s.table?.[0]?.table ?? '').toLowerCase();
      const cols = new Set<string>();
      for (const def of s.create_definitions ?? []) {
        if (def?.resource === 'column') cols.add(String(nameOf(def.column?.column)).toLowerCase());
      }
      if (s.as || s.query_expr) return { ok: false, message: 'CREATE TABLE … AS SELECT is not a schema definition' };
      schema.set(name, cols);
    } else if (s.keyword === 'view') {
      const name = String(s.view?.view ?? nameOf(s.view) ?? '').toLowerCase();
      schema.set(name, viewColumns(s.select, schema));
    } else if (s.keyword !== 'index') {
      return { ok: false, message: `CREATE ${String(s.keyword ?? '').toUpperCase()} is not accepted in schema_ddl (tables, indexes and views only)` };
    }
    // indexes add no names to resolve
  }
  if (schema.size === 0) return { ok: false, message: 'schema_ddl defines no table' };
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
  return t.ok ? { ok: true, schema: t.schema, source: 'sqlite' } : t;
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
    const s = fromAst(r.statements);
    return s.ok ? { ok: true, schema: s.schema, source: 'node-sql-parser' } : s;
  }
  const second = first ?? await viaSqlite(ddl);
  return second.ok ? second : { ok: false, message: d.name === 'sqlite' ? second.message : r.message };
}
