import type { Config } from './config.js';
import type { Store } from './store.js';

/**
 * The store the configuration names: PostgreSQL when `store.url` is set (shared mode, replicas
 * share it), otherwise the embedded LMDB store in `data_dir`. The server, the CLI and `proofgate
 * migrate` all open it here so they agree on where the data lives. Only the backend in use is
 * imported: the other one's driver (pg, lmdb) is memory a sidecar would carry for nothing.
 */
export async function openStore(config: Pick<Config, 'data_dir' | 'store'>, onError?: (err: Error) => void, warn?: (message: string) => void): Promise<Store> {
  const url = config.store?.url;
  if (url) {
    const { PgStore } = await import('./store-pg.js');
    return new PgStore({ url, onError });
  }
  const { LmdbStore } = await import('./store-lmdb.js');
  return new LmdbStore(config.data_dir, warn ? { warn } : undefined);
}
