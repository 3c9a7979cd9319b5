import { createRequire } from 'node:module';

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
    ready = init().catch((e: unknown) => {
      ready = null;
      throw e;
    });
  }
  return ready;
}
