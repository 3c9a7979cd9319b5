import { createRequire } from 'node:module';

/** SQLite heap cap per wasm instance (bytes): bounds what any schema or dry run can allocate. */
export const SQLITE_HEAP_LIMIT_BYTES = 64 * 1024 * 1024;

/** The slice of sql.js we use (the package ships no types). */
export interface SqlJsStatement {
  step(): boolean;
  get(): unknown[];
  free(): boolean;
}
export interface SqlJsDatabase {
  exec(sql: string): Array<{ columns: string[]; values: unknown[][] }>;
  prepare(sql: string): SqlJsStatement;
  close(): void;
}
export interface SqlJsStatic {
  Database: new () => SqlJsDatabase;
}

const require = createRequire(import.meta.url);
let ready: Promise<SqlJsStatic> | null = null;

/** One wasm instance per worker thread: init costs ~55 ms, a fresh database ~0.3 ms. */
export function sqlJs(): Promise<SqlJsStatic> {
  if (!ready) {
    const init = require('sql.js') as (opts?: object) => Promise<SqlJsStatic>;
    ready = init().then((SQL) => {
      // SQLite's heap is per wasm instance (one per worker): cap it once, for every database
      const db = new SQL.Database();
      try {
        db.exec(`PRAGMA hard_heap_limit = ${SQLITE_HEAP_LIMIT_BYTES}`);
      } finally {
        db.close();
      }
      return SQL;
    }).catch((e: unknown) => {
      ready = null;
      throw e;
    });
  }
  return ready;
}
