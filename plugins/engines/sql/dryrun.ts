import { sqlJs } from './sqljs.js';

export type DryRun = { ok: true; plan: string[] } | { ok: false; message: string };

/**
 * SQLite only: build the schema in a fresh in-memory database and compile the query under
 * EXPLAIN QUERY PLAN. Compiling resolves every name and type the way SQLite will; stepping an
 * EXPLAIN QUERY PLAN statement reads the plan, it never runs the query itself.
 */
export async function dryRun(schemaDdl: string, query: string): Promise<DryRun> {
  const SQL = await sqlJs();
  const db = new SQL.Database();
  try {
    try {
      db.exec(schemaDdl);
    } catch (e) {
      return { ok: false, message: `schema: ${clean(e)}` };
    }
    const stmt = db.prepare('EXPLAIN QUERY PLAN ' + stripTrailingSemicolons(query));
    try {
      const plan: string[] = [];
      while (stmt.step() && plan.length < 200) plan.push(String(stmt.get()[3] ?? ''));
      return { ok: true, plan };
    } finally {
      stmt.free();
    }
  } catch (e) {
    return { ok: false, message: clean(e) };
  } finally {
    db.close();
  }
}

function stripTrailingSemicolons(q: string): string {
  return q.replace(/[\s;]+$/, '');
}

function clean(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0].slice(0, 300);
}
