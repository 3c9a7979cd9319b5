import { firstLine, schemaDatabase } from './schema-db.js';
import { isSpace } from './tokens.js';

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
    const stmt = s.db.prepare('EXPLAIN QUERY PLAN ' + withoutTrailingSeparators(query));
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

/**
 * The query without trailing whitespace and `;`. A loop from the end: the regular expression
 * `/[\s;]+$/` it replaces retried from every position of an inner whitespace run (a query with
 * 19,000 spaces in the middle spent over a second there).
 */
export function withoutTrailingSeparators(query: string): string {
  let end = query.length;
  while (end > 0) {
    const c = query.charCodeAt(end - 1);
    if (c !== 0x3b && !isSpace(c)) break;
    end--;
  }
  return query.slice(0, end);
}
