import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, DEFAULT_CONFIG_PATH, loadConfig } from '../../core/config.js';
import type { Command } from '../../core/cli.js';
import { LmdbStore } from '../../core/store-lmdb.js';
import { AUDIT_COLLECTION } from './payload.js';
import { walkChains } from './verify.js';



/**
 * `proofgate audit verify`: opens the store offline (LMDB allows it beside a running server) and
 * walks every chain with the same checks as GET /admin/compliance/verify. Exit 0 = intact,
 * 1 = broken (the first broken link is printed), 2 = cannot run (config, secret, data dir).
 */
export const auditVerifyCommand: Command = {
  name: 'audit verify',
  summary: 'verify the audit hash chains offline (exit 1 at the first broken link)',
  usage: `proofgate audit verify [--org ID] [--data-dir DIR] [--config PATH]

Walks the audit chain of every organisation (or only --org ID) in the data directory and checks each
entry: payload hash (current or legacy canonical form), HMAC with SVC_AUDIT_SECRET_KEY, and linkage
to the previous entry (no gaps, first prev_hash null). Prints OK and exits 0 when every chain is
intact; prints the first broken link and exits 1 otherwise; exits 2 when it cannot run.
  --org ID         verify one organisation's chain
  --data-dir DIR   data directory (default: data_dir of the configuration)
  --config PATH    config file (default $SVC_CONFIG, else ${DEFAULT_CONFIG_PATH} when present)`,
  async run(argv) {
    if (argv.includes('--help') || argv.includes('-h')) {
      console.log(this.usage);
      return 0;
    }
    let values;
    try {
      ({ values } = parseArgs({ args: argv, options: { org: { type: 'string' }, 'data-dir': { type: 'string' }, config: { type: 'string' } } }));
    } catch (err) {
      console.error(`proofgate audit verify: ${(err as Error).message}\n\n${this.usage}`);
      return 2;
    }
    const file = values.config ?? process.env.SVC_CONFIG ?? (existsSync(DEFAULT_CONFIG_PATH) ? DEFAULT_CONFIG_PATH : null);
    let config;
    try {
      config = loadConfig({ file, overrides: values['data-dir'] ? { data_dir: values['data-dir'] } : undefined });
    } catch (err) {
      console.error(`proofgate audit verify: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
      return 2;
    }
    const secret = config.secrets.audit_secret_key;
    if (!secret) {
      console.error('proofgate audit verify: SVC_AUDIT_SECRET_KEY is not set: HMACs cannot be checked');
      return 2;
    }
    if (!existsSync(config.data_dir)) {
      console.error(`proofgate audit verify: data directory ${config.data_dir} does not exist`);
      return 2;
    }
    const store = new LmdbStore(config.data_dir);
    try {
      const r = await walkChains(store.collection<unknown>(AUDIT_COLLECTION), secret, { orgId: values.org });
      if (r.broken) {
        const b = r.broken;
        console.log(`BROKEN org=${b.org_id} seq=${b.seq} log_id=${b.log_id ?? '-'}: ${b.reason}`);
        console.log(`(${r.entries} entries verified before the break)`);
        return 1;
      }
      console.log(`OK: ${r.entries} entries in ${r.orgs} chain(s) verified`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
