import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, DEFAULT_CONFIG_PATH, type Config, type LoadOptions } from '../../core/config.js';
import { defineCommand, type Command } from '../../core/cli.js';
import { existingStoreProblem, openStore } from '../../core/store/open.js';
import { AUDIT_CODECS, AUDIT_COLLECTION } from './compact.js';
import { checkAgainstCheckpoints, checkpointAnchor } from './checkpoint.js';
import { walkChains } from './verify.js';
import { verifyExportFile } from './export-verify.js';

/** an RFC 7638 SHA-256 thumbprint: 43 base64url characters, one in 64 of them starting with `-` */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/**
 * node:util parseArgs reads `--pin -Xyz…` as --pin without its value (and -X… as options), so the
 * operator whose key's thumbprint starts with a dash would be told to write `--pin=-Xyz…`. A
 * thumbprint after --pin is its value whatever its first character; anything else is left to
 * parseArgs as before.
 */
function pinsGlued(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--pin' && argv[i + 1]?.startsWith('-') && THUMBPRINT.test(argv[i + 1])) out.push(`--pin=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

/**
 * `proofgate audit verify`: opens the store offline (LMDB allows it beside a running server) and
 * walks every chain with the same checks as GET /admin/compliance/verify. Exit 0 = intact,
 * 1 = broken (the first broken link is printed), 2 = cannot run (config, secret, data dir).
 */
/**
 * `proofgate audit verify`. `loadConfig` reads the configuration as the host does (the sidecar's
 * knows every built-in plugin's settings, so a config file that holds them is accepted here too).
 */
export const createAuditVerifyCommand = (loadConfig: (o: Omit<LoadOptions, 'settings'>) => Config): Command => defineCommand({
  name: 'audit verify',
  summary: 'verify the audit hash chains and checkpoints offline (exit 1 at a break or truncation)',
  usage: `proofgate audit verify [--org ID] [--pin THUMBPRINT]... [--data-dir DIR] [--config PATH]
       proofgate audit verify --export FILE [--hmac-key-file FILE] [--pin THUMBPRINT]...

Walks the audit chain of every organisation (or only --org ID) in the data directory and checks each
entry: payload hash (current or legacy canonical form), HMAC with SVC_AUDIT_SECRET_KEY, and linkage
to the previous entry (no gaps, first prev_hash null). A chain whose start was pruned by retention
starts after the signed checkpoint at the prune point. Then each organisation's newest signed
checkpoint (ES256, attestation key) must verify and its head must still be in the chain: a chain
that ends before it, or differs at it, is reported TRUNCATED. Prints OK and exits 0 when every chain
is intact; prints the first problem and exits 1 otherwise; exits 2 when it cannot run.
  --org ID         verify one organisation's chain
  --pin TP         accept only checkpoints signed by the key with this RFC 7638 SHA-256 JWK
                   thumbprint (repeatable; see /health/identity). Without a pin, checkpoints are
                   checked against the public key stored beside them, which proves nothing against
                   someone able to rewrite the data directory.
  --data-dir DIR   data directory (default: data_dir of the configuration)
  --config PATH    config file (default $SVC_CONFIG, else ${DEFAULT_CONFIG_PATH} when present)
  --export FILE    verify one retention export file instead, with no store and no configuration:
                   its entries' hashes and links, from the anchor checkpoint it carries (or seq 0)
                   to the signed prune checkpoint over its last entry. BROKEN names the first bad
                   seq and line.
  --hmac-key-file F  with --export: also check every HMAC with the key in F (the value of
                   SVC_AUDIT_SECRET_KEY; one trailing newline is ignored). Without it HMACs are not
                   checked, and the output says so.`,
  options: { org: { type: 'string' }, pin: { type: 'string', multiple: true }, 'data-dir': { type: 'string' }, config: { type: 'string' }, export: { type: 'string' }, 'hmac-key-file': { type: 'string' } },
  preparse: (argv) => pinsGlued(argv),
  async run({ values }) {
    if (values['hmac-key-file'] !== undefined && values.export === undefined) {
      console.error('proofgate audit verify: --hmac-key-file goes with --export (the store is checked with SVC_AUDIT_SECRET_KEY)');
      return 2;
    }
    if (values.export !== undefined) return verifyExport(values.export, values['hmac-key-file'], values.pin);
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
    const problem = config.store?.url ? null : existingStoreProblem(config.data_dir);
    if (problem) {
      console.error(`proofgate audit verify: ${problem}`);
      return 2;
    }
    // the configured store: the LMDB data directory, or PostgreSQL in shared mode (SVC_STORE_URL)
    const store = await openStore(config, undefined, undefined, { codecs: AUDIT_CODECS });
    try {
      const pins = values.pin;
      const r = await walkChains(store.collection<unknown>(AUDIT_COLLECTION), secret, { orgId: values.org, anchor: checkpointAnchor(store, pins) });
      if (r.broken) {
        const b = r.broken;
        console.log(`BROKEN org=${b.org_id} seq=${b.seq} log_id=${b.log_id ?? '-'}: ${b.reason}`);
        console.log(`(${r.entries} entries verified before the break)`);
        return 1;
      }
      const problems = await checkAgainstCheckpoints(store, r, { orgId: values.org, pins });
      if (problems.length) {
        for (const p of problems) console.log(`TRUNCATED org=${p.org_id} seq=${p.seq}: ${p.reason}`);
        console.log(`(${r.entries} entries verified, but ${problems.length} chain(s) fail their checkpoint)`);
        return 1;
      }
      const anchored = [...r.heads.values()].filter((h) => h.first > 0).length;
      console.log(`OK: ${r.entries} entries in ${r.orgs} chain(s) verified${anchored ? ` (${anchored} starting at a prune checkpoint)` : ''}`);
      return 0;
    } finally {
      await store.close();
    }
  },
});

/** `--export FILE`: the file alone, offline; no configuration is loaded */
async function verifyExport(file: string, keyFile: string | undefined, pins: string[] | undefined): Promise<number> {
  let hmacKey: string | undefined;
  if (keyFile !== undefined) {
    try {
      hmacKey = readFileSync(keyFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      console.error(`proofgate audit verify: cannot read --hmac-key-file: ${(err as Error).message}`);
      return 2;
    }
    if (!hmacKey) {
      console.error('proofgate audit verify: --hmac-key-file is empty');
      return 2;
    }
  }
  const r = await verifyExportFile(file, { hmacKey, pins });
  if (r.code === 2) console.error(`proofgate audit verify: ${r.message}`);
  else console.log(r.message);
  return r.code;
}
