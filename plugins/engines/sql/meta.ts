/** Constants shared by the route (main thread) and the engine (worker), without loading the parsers. */
export const ENGINE_NAME = 'sql';
export const ENGINE_VERSION = '1.2.0';

/** Size caps and complexity limits (documented in docs/engines/sql.md). */
export const LIMITS = Object.freeze({
  query_chars: 20_000,
  schema_ddl_chars: 200_000,
  tables: 10,
  joins: 5,
  subquery_depth: 3,
  set_operations: 10,
});
