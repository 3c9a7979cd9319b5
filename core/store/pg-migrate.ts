import type pg from 'pg';

/**
 * Schema versions of the PostgreSQL store, applied in order at start-up. Append only: a released
 * migration never changes, a new one gets the next number. `{schema}` is replaced by the quoted
 * schema name.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `CREATE TABLE {schema}.kv (
      collection text COLLATE "C" NOT NULL,
      key text COLLATE "C" NOT NULL,
      value bytea NOT NULL,
      PRIMARY KEY (collection, key)
    )`,
  },
];

/**
 * Brings `schema` up to the latest version. Replicas starting together all call this; a
 * session-level advisory lock (keyed by the schema name) makes them run one after the other, so
 * the second finds the versions recorded and does nothing. Each migration commits with its row
 * in `{schema}.migrations`.
 */
/**
 * Migrations may rewrite a large table and wait for another replica's migrations: their statements
 * are not held to the store's per-statement timeout (store-pg.ts), only to this one.
 */
const MIGRATION_TIMEOUT_MS = 6 * 3_600_000;
// (node-postgres reads query_timeout per query; its types omit it)
const long = (text: string, values?: unknown[]) => ({ text, values, query_timeout: MIGRATION_TIMEOUT_MS });

export async function migrate(pool: pg.Pool, schema: string): Promise<number[]> {
  const q = `"${schema}"`;
  const c = await pool.connect();
  const applied: number[] = [];
  let broken: Error | undefined;
  // checked out, the client has no pool listener: a lost server must reject, not crash the process
  const onError = (err: Error) => (broken = err);
  c.on('error', onError);
  try {
    await c.query(long('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`proofgate.migrate:${schema}`]));
    try {
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${q}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const done = new Set((await c.query(`SELECT version FROM ${q}.migrations`)).rows.map((r: { version: number }) => r.version));
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await c.query('BEGIN');
        try {
          await c.query(long(m.sql.replaceAll('{schema}', q)));
          await c.query(`INSERT INTO ${q}.migrations (version) VALUES ($1)`, [m.version]);
          await c.query('COMMIT');
        } catch (err) {
          await c.query('ROLLBACK');
          throw err;
        }
        applied.push(m.version);
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`proofgate.migrate:${schema}`]);
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    // a connection that failed mid-way is discarded rather than returned holding a lock
    c.removeListener('error', onError);
    c.release(broken);
  }
  return applied;
}
