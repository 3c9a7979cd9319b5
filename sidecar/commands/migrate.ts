import { existsSync } from 'node:fs';
import { ConfigError, DEFAULT_CONFIG_PATH } from '../../core/config.js';
import { loadServiceConfig } from '../config.js';
import { defineCommand, type Command } from '../../core/cli.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import { existingStoreProblem } from '../../core/store/open.js';
import { PgStore } from '../../core/store/pg.js';
import type { Store } from '../../core/store/store.js';
import { AUDIT_COLLECTION, checkAgainstCheckpoints, checkpointAnchor, walkChains, type WalkResult } from '../../plugins/audit/index.js';
import { builtinCollections } from '../builtin.js';

const PAGE = 1000;

/**
 * `proofgate migrate --to postgres://…`: copies an LMDB data directory into an empty PostgreSQL
 * store (shared mode). The audit chains are verified before (a broken source is not migrated) and
 * after (same organisations, entries and heads, checkpoints still matching), and every
 * collection's entry count is compared. The sidecar owning the directory should be stopped.
 */
export const migrateCommand: Command = defineCommand({
  name: 'migrate',
  summary: 'copy an LMDB data directory into PostgreSQL (shared mode), audit chains verified before and after',
  usage: `proofgate migrate --to postgres://USER@HOST:PORT/DB [--schema NAME] [--data-dir DIR] [--config PATH]

Copies every collection of the LMDB data directory (default: data_dir of the configuration) into the
PostgreSQL database named by --to (migrations run first; the target schema, default "proofgate",
must hold no data). Stop the sidecar first so nothing is written meanwhile. The audit chains are
verified with SVC_AUDIT_SECRET_KEY before copying (a broken chain stops the migration: exit 1) and
again in PostgreSQL afterwards (same organisations, entries, heads; checkpoints still match). Then
set SVC_STORE_URL to the same URL on every replica. Exit 0 = copied and verified, 1 = a check
failed, 2 = cannot run.`,
  options: { to: { type: 'string' }, schema: { type: 'string' }, 'data-dir': { type: 'string' }, config: { type: 'string' } },
  async run({ values }) {
    const fail = (code: number, msg: string) => {
      console.error(`proofgate migrate: ${msg}`);
      return code;
    };
    if (!values.to || !/^postgres(ql)?:\/\//.test(values.to)) return fail(2, `--to postgres://… is required\n\n${this.usage}`);
    const file = values.config ?? process.env.SVC_CONFIG ?? (existsSync(DEFAULT_CONFIG_PATH) ? DEFAULT_CONFIG_PATH : null);
    let config;
    try {
      config = loadServiceConfig({ file, overrides: values['data-dir'] ? { data_dir: values['data-dir'] } : undefined });
    } catch (err) {
      return fail(2, err instanceof ConfigError ? err.message : (err as Error).message);
    }
    const secret = config.secrets.audit_secret_key;
    if (!secret) return fail(2, 'SVC_AUDIT_SECRET_KEY is not set: the audit chains cannot be verified');
    // the codecs every built-in plugin declares: values are read and written in their stored
    // layouts on both sides
    const codecs = await builtinCollections();
    const problem = existingStoreProblem(config.data_dir);
    if (problem) return fail(2, problem);

    const source = new LmdbStore(config.data_dir, { codecs });
    let target: PgStore | undefined;
    try {
      const before = await verifyChains(source, secret);
      if (typeof before === 'string') return fail(1, `the source is not migrated: ${before}`);
      console.log(`source: ${before.entries} audit entries in ${before.orgs} chain(s) verified`);
      try {
        target = new PgStore({ url: values.to, schema: values.schema, openTimeoutMs: 10_000, codecs });
        await target.whenOpen();
      } catch (err) {
        return fail(2, `cannot open the target: ${(err as Error).message}`);
      }
      const existing = (await target.stats()).filter((c) => c.entries > 0);
      if (existing.length) return fail(2, `the target already holds data (${existing.map((c) => `${c.name}: ${c.entries}`).join(', ')}); migrate into an empty schema`);

      const counts = new Map<string, number>();
      for (const { name } of await source.stats()) {
        const col = source.collection<unknown>(name);
        let start: string | undefined;
        let n = 0;
        for (;;) {
          const page = await col.list({ start, limit: PAGE });
          if (!page.length) break;
          // one transaction per page; values go through the collection's codec on both sides
          await target.commit(page.map((e) => ({ collection: name, key: e.key, value: e.value })));
          n += page.length;
          start = page[page.length - 1].key + '\u0000';
        }
        counts.set(name, n);
        console.log(`copied ${name}: ${n}`);
      }

      for (const [name, n] of counts) {
        const there = await target.collection(name).count();
        if (there !== n) return fail(1, `collection ${name}: ${n} entries in the source, ${there} in the target`);
      }
      const after = await verifyChains(target, secret);
      if (typeof after === 'string') return fail(1, `the copied audit chains fail verification: ${after}`);
      if (after.entries !== before.entries || after.orgs !== before.orgs) {
        return fail(1, `the copied audit chains differ: ${after.entries} entries in ${after.orgs} chain(s), expected ${before.entries} in ${before.orgs}`);
      }
      for (const [org, h] of before.heads) {
        const g = after.heads.get(org);
        if (!g || g.seq !== h.seq || g.hash !== h.hash) return fail(1, `the copied chain of ${org} ends elsewhere than the source's`);
      }
      console.log(`target: ${after.entries} audit entries in ${after.orgs} chain(s) verified; set SVC_STORE_URL on every replica`);
      return 0;
    } finally {
      await source.close();
      await target?.close();
    }
  },
});

/** the walk of every chain plus the checkpoint check, or what is wrong */
async function verifyChains(store: Store, secret: string): Promise<WalkResult | string> {
  const r = await walkChains(store.collection<unknown>(AUDIT_COLLECTION), secret, { anchor: checkpointAnchor(store) });
  if (r.broken) return `BROKEN org=${r.broken.org_id} seq=${r.broken.seq}: ${r.broken.reason}`;
  const problems = await checkAgainstCheckpoints(store, r);
  if (problems.length) return problems.map((p) => `TRUNCATED org=${p.org_id} seq=${p.seq}: ${p.reason}`).join('; ');
  return r;
}
