import type { Config } from './config.js';
import { LmdbStore } from './store-lmdb.js';
import { PgStore } from './store-pg.js';
import type { Store } from './store.js';

/**
 * The store the configuration names: PostgreSQL when `store.url` is set (shared mode, replicas
 * share it), otherwise the embedded LMDB store in `data_dir`. The server, the CLI and `proofgate
 * migrate` all open it here so they agree on where the data lives.
 */
export function openStore(config: Pick<Config, 'data_dir' | 'store'>, onError?: (err: Error) => void, warn?: (message: string) => void): Store {
  const url = config.store?.url;
  if (url) return new PgStore({ url, onError });
  return new LmdbStore(config.data_dir, warn ? { warn } : undefined);
}
