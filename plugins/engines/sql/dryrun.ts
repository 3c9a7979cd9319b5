import { firstLine, schemaDatabase } from './schema-db.js';

export type DryRun = { ok: true; plan: string[] } | { ok: false; message: string };

/**
 * SQLite only: compile the query under EXPLAIN QUERY PLAN against the schema's database (built
 * once per worker and schema, schema-db.ts). Compiling resolves every name, function and type the
 * way SQLite will; stepping an EXPLAIN QUERY PLAN statement reads the plan and never runs the
 * query itself.
 */
export async function dryRun(schemaDdl: string, query: string): Promise<DryRun> {
  const s = await schemaDatabase(schemaDdl);
  if (!s.ok) return { ok: false, message: `schema: ${s.message}` };
  try {
    const stmt = s.db.prepare('EXPLAIN QUERY PLAN ' + query.replace(/[\s;]+$/, ''));
    try {
      const plan: string[] = [];
      while (stmt.step() && plan.length < 200) plan.push(String(stmt.get()[3] ?? ''));
      return { ok: true, plan };
    } finally {
      stmt.free();
    }
  } catch (e) {
    return { ok: false, message: firstLine(e) };
  }
}
