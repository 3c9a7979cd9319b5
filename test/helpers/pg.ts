import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL for tests: the machine's server (127.0.0.1:5432, user postgres, trust auth, or
 * $PROOFGATE_TEST_PG_URL naming another admin URL). Each test file run gets a fresh database with a
 * random name, dropped at teardown; each store inside it gets its own schema.
 */
const ADMIN_URL = process.env.PROOFGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** URL of the fresh database */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** the reason PostgreSQL cannot be used, or null when it answers */
export async function pgUnavailable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (err) {
    return `no PostgreSQL server answers at ${ADMIN_URL.replace(/:[^:@/]*@/, '@')} (${(err as Error).message}); start one (see .ci/run) to run the shared-mode tests`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `proofgate_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** a schema name unique within the run */
export function freshSchema(): string {
  return `s_${randomBytes(5).toString('hex')}`;
}

/**
 * This test file's fresh database, dropped at teardown; or null, with a comment saying why, when no
 * PostgreSQL server answers (the file's shared-mode tests are then reported as not run).
 */
export async function testDatabase(t: { comment(message: string): void; teardown(fn: () => unknown): void }): Promise<TestDatabase | null> {
  const why = await pgUnavailable();
  if (why) {
    t.comment(`skipped: ${why}`);
    return null;
  }
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  return db;
}
