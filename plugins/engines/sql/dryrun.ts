import { sqlJs, type SqlJsDatabase } from './sqljs.js';
import { Lru } from './cache.js';
import { capDatabase, holdsRows } from './ddl-gate.js';

export type DryRun = { ok: true; plan: string[] } | { ok: false; message: string };

/**
 * One in-memory database per distinct schema, kept per worker: it only ever holds the schema,
 * because the queries compiled against it are never run (EXPLAIN QUERY PLAN reads the plan).
 */
const dbs = new Lru<SqlJsDatabase | string>(8, (db) => { if (typeof db !== 'string') db.close(); });

export function clearDatabases(): void {
  dbs.clear();
}

async function databaseFor(schemaDdl: string): Promise<SqlJsDatabase | string> {
  const hit = dbs.get(schemaDdl);
  if (hit !== undefined) return hit;
  const SQL = await sqlJs();
  const db = new SQL.Database();
  let entry: SqlJsDatabase | string = db;
  try {
    capDatabase(db);
    db.exec(schemaDdl);
    // a database holding rows is never cached or planned against (the DDL gate should make this unreachable)
    if (holdsRows(db)) {
      db.close();
      entry = 'schema: schema_ddl filled a table with rows';
    }
  } catch (e) {
    db.close();
    entry = `schema: ${clean(e)}`;
  }
  dbs.set(schemaDdl, entry);
  return entry;
}

/**
 * SQLite only: compile the query under EXPLAIN QUERY PLAN against the schema. Compiling resolves
 * every name, function and type the way SQLite will; stepping an EXPLAIN QUERY PLAN statement
 * reads the plan and never runs the query itself.
 */
export async function dryRun(schemaDdl: string, query: string): Promise<DryRun> {
  const db = await databaseFor(schemaDdl);
  if (typeof db === 'string') return { ok: false, message: db };
  try {
    const stmt = db.prepare('EXPLAIN QUERY PLAN ' + query.replace(/[\s;]+$/, ''));
    try {
      const plan: string[] = [];
      while (stmt.step() && plan.length < 200) plan.push(String(stmt.get()[3] ?? ''));
      return { ok: true, plan };
    } finally {
      stmt.free();
    }
  } catch (e) {
    return { ok: false, message: clean(e) };
  }
}

function clean(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0].slice(0, 300);
}
