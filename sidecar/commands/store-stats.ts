import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand, type Command } from '../../core/cli.js';
import { ConfigError, DEFAULT_CONFIG_PATH } from '../../core/config.js';
import { loadServiceConfig } from '../config.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import { existingStoreProblem } from '../../core/store/open.js';

/**
 * `proofgate store stats`: entries and bytes per collection of the data directory, read offline
 * (LMDB allows it beside a running server), plus the size of the files on disk.
 */
export const storeStatsCommand: Command = defineCommand({
  name: 'store stats',
  summary: 'entries and bytes per store collection (offline)',
  usage: `proofgate store stats [--json] [--data-dir DIR] [--config PATH]

Prints, for every collection of the embedded store, its number of entries and the bytes of the
pages that hold it, then the size of the data files on disk (which includes free pages LMDB keeps
for reuse). Exits 2 when it cannot run.
  --json           one JSON object instead of a table
  --data-dir DIR   data directory (default: data_dir of the configuration)
  --config PATH    config file (default $SVC_CONFIG, else ${DEFAULT_CONFIG_PATH} when present)`,
  options: { json: { type: 'boolean' }, 'data-dir': { type: 'string' }, config: { type: 'string' } },
  async run({ values }) {
    let dataDir = values['data-dir'];
    if (!dataDir) {
      const file = values.config ?? process.env.SVC_CONFIG ?? (existsSync(DEFAULT_CONFIG_PATH) ? DEFAULT_CONFIG_PATH : null);
      try {
        dataDir = loadServiceConfig({ file }).data_dir;
      } catch (err) {
        console.error(`proofgate store stats: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
        return 2;
      }
    }
    const problem = existingStoreProblem(dataDir);
    if (problem) {
      console.error(`proofgate store stats: ${problem}`);
      return 2;
    }
    const store = new LmdbStore(dataDir);
    try {
      const collections = (await store.stats()).sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0));
      const files = readdirSync(dataDir)
        .filter((f) => f.endsWith('.mdb'))
        .reduce((n, f) => n + statSync(join(dataDir!, f)).size, 0);
      if (values.json) {
        console.log(JSON.stringify({ data_dir: dataDir, file_bytes: files, collections }));
        return 0;
      }
      const w = Math.max(10, ...collections.map((c) => c.name.length));
      console.log(`${'collection'.padEnd(w)}  ${'entries'.padStart(10)}  ${'bytes'.padStart(12)}`);
      for (const c of collections) console.log(`${c.name.padEnd(w)}  ${String(c.entries).padStart(10)}  ${String(c.bytes ?? '-').padStart(12)}`);
      console.log(`data files on disk: ${files} bytes`);
      return 0;
    } finally {
      await store.close();
    }
  },
});
