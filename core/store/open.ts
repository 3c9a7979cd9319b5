import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { CollectionCodecs, Store } from './store.js';
import type { HealthLog } from './lmdb-health.js';

/**
 * The store the configuration names: PostgreSQL when `store.url` is set (shared mode, replicas
 * share it), otherwise the embedded LMDB store in `data_dir`. The server, the CLI and `proofgate
 * migrate` all open it here so they agree on where the data lives. Only the backend in use is
 * imported: the other one's driver (pg, lmdb) is memory a sidecar would carry for nothing.
 * `more.codecs`: the layouts of the collections the opener reads (the kernel adds its plugins' own).
 */
export async function openStore(
  config: Pick<Config, 'data_dir' | 'store'>,
  onError?: (err: Error) => void,
  warn?: (message: string) => void,
  more: { log?: HealthLog; closeTimeoutMs?: number; codecs?: CollectionCodecs } = {},
): Promise<Store> {
  const url = config.store?.url;
  if (url) {
    const { PgStore } = await import('./pg.js');
    return new PgStore({ url, onError, codecs: more.codecs });
  }
  const { LmdbStore } = await import('./lmdb.js');
  return new LmdbStore(config.data_dir, { warn, ...more });
}

/**
 * Why the offline commands (store stats, audit verify, orgs, migrate) cannot read `dir` as an
 * existing LMDB store, or null when they can. Opening a directory that holds no store creates one
 * there and tightens the directory to 0700, so a mistyped --data-dir used to change another
 * directory's mode and report an empty store as a result (`audit verify`: "OK: 0 entries").
 */
export function existingStoreProblem(dir: string): string | null {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    return `data directory ${dir} does not exist`;
  }
  if (!isDir) return `data directory ${dir} is not a directory`;
  // LMDB creates data.mdb when a store is first opened, before anything is written
  if (!existsSync(join(dir, 'data.mdb'))) return `data directory ${dir} holds no store (no data.mdb)`;
  return null;
}
