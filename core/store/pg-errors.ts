import { StoreFullError, StoreUnavailableError } from './store.js';

/** node-postgres' client-side query_timeout */
export function isQueryTimeout(err: unknown): boolean {
  return (err as Error)?.message === 'Query read timeout';
}

/** A server that does not answer (yet): start-up keeps retrying on these. */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  // network errors from node, and PostgreSQL's "cannot connect now" / "too many connections" classes
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|57P03|53300)$/.test(code) || /timeout|terminat/i.test(String((err as Error).message));
}

/**
 * Failures of the database rather than of the request: the connection (class 08), the server
 * shutting down or refusing (57P01–57P03, 53300), a statement cancelled or timed out (57014, the
 * client's query_timeout), a primary demoted to a read-only standby (25006). A request that meets
 * one is worth retrying shortly, here or on another replica: 503, not an internal error.
 */
function isUnavailable(err: unknown): boolean {
  const code = String((err as { code?: string })?.code ?? '');
  return isConnectionError(err) || isQueryTimeout(err) || /^08/.test(code) || /^(57P01|57P02|57014|25006)$/.test(code);
}

/**
 * `err` as a StoreUnavailableError when the database failed, as a StoreFullError when it refused a
 * write for lack of disk space (53100 disk_full: 507 store_full, as a full LMDB disk answers, since
 * a retry does not help until someone frees space), else unchanged.
 */
export function classifyPgError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || err instanceof StoreFullError) return err;
  if ((err as { code?: unknown })?.code === '53100') return new StoreFullError(`PostgreSQL: ${(err as Error).message}`, { cause: err });
  if (!isUnavailable(err)) return err;
  return new StoreUnavailableError(`PostgreSQL: ${(err as Error).message}`, { cause: err });
}
