import { existsSync } from 'node:fs';
import { defineCommand, type Command } from '../../core/cli.js';
import { ConfigError, DEFAULT_CONFIG_PATH, type Config } from '../../core/config.js';
import { loadServiceConfig } from '../config.js';
import { LmdbStore } from '../../core/store/lmdb.js';
import { existingStoreProblem } from '../../core/store/open.js';
import type { Role } from '../../core/types.js';
import { Accounts, ApiKeys, defaultPlanOf, hashPassword, OrgAdmin, Plans, SecurityEvents, UnknownValueError } from '../../plugins/auth/index.js';
import { loadBootstrap } from '../provision/file.js';

/**
 * `proofgate orgs …`: whoever runs the CLI on the data directory is an operator (decisions §5). The
 * store is opened directly (LMDB allows it beside a running server); a running server picks up a
 * plan change within its 30 s plan cache.
 */
const COMMON = `  --data-dir DIR   data directory (default: data_dir of the configuration)
  --config PATH    config file (default $SVC_CONFIG, else ${DEFAULT_CONFIG_PATH} when present)`;

const ORG_OPTIONS = { 'data-dir': { type: 'string' }, config: { type: 'string' } } as const;

async function withOrgs(name: string, values: { 'data-dir'?: string; config?: string }, positionals: string[], fn: (admin: OrgAdmin, args: string[], config: Config) => Promise<number>): Promise<number> {
  const file = values.config ?? process.env.SVC_CONFIG ?? (existsSync(DEFAULT_CONFIG_PATH) ? DEFAULT_CONFIG_PATH : null);
  let config: Config;
  try {
    config = loadServiceConfig({ file, overrides: values['data-dir'] ? { data_dir: values['data-dir'] } : undefined });
  } catch (err) {
    console.error(`proofgate ${name}: ${err instanceof ConfigError ? err.message : (err as Error).message}`);
    return 2;
  }
  const problem = existingStoreProblem(config.data_dir);
  if (problem) {
    console.error(`proofgate ${name}: ${problem}`);
    return 2;
  }
  // the plans the server knows: config, plus those the bootstrap file adds
  let plans = config.limits.plans;
  if (config.bootstrap_file) {
    try {
      plans = { ...plans, ...(loadBootstrap(config.bootstrap_file, { mode: config.mode, env: null }).plans ?? {}) };
    } catch (err) {
      console.error(`proofgate ${name}: ${(err as Error).message}`);
      return 2;
    }
  }
  const store = new LmdbStore(config.data_dir);
  const events = new SecurityEvents(store);
  try {
    const defaultPlan = defaultPlanOf(config);
    const accounts = new Accounts(store, defaultPlan);
    // set-role brings the user's API keys in line with the new role (docs/auth.md); following keys
    // needs no digest, so the lookup secret only has to be a string here
    const keys = new ApiKeys(store, config.secrets.api_key_lookup_secret ?? '');
    return await fn(new OrgAdmin(accounts, new Plans(plans, defaultPlan), null, keys, events), positionals, config);
  } catch (err) {
    if (err instanceof UnknownValueError) {
      console.error(`proofgate ${name}: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    await events.flush();
    await store.close();
  }
}

export const orgsSetPlanCommand: Command = defineCommand({
  name: 'orgs set-plan',
  summary: "set an organisation's plan (operator, on the data directory)",
  usage: `proofgate orgs set-plan ORG_ID PLAN [--data-dir DIR] [--config PATH]

Sets the plan of organisation ORG_ID. PLAN is a name of limits.plans (free, pro, enterprise and
unlimited unless the configuration adds others). A running server applies it within 30 s.
${COMMON}`,
  options: ORG_OPTIONS,
  positionals: { min: 2, max: 2 },
  async run({ values, positionals }) {
    return withOrgs(this.name, values, positionals, async (admin, [orgId, plan]) => {
      const org = await admin.setPlan(orgId, plan);
      if (!org) {
        console.error(`proofgate orgs set-plan: no organisation ${orgId}`);
        return 1;
      }
      console.log(`${org.id} (${org.name}): plan ${org.tier}`);
      return 0;
    });
  },
});

export const orgsSetRoleCommand: Command = defineCommand({
  name: 'orgs set-role',
  summary: "set a user's role in an organisation (operator, on the data directory)",
  usage: `proofgate orgs set-role ORG_ID USER_ID ROLE [--data-dir DIR] [--config PATH]

Sets the role (owner, admin, member) of user USER_ID in organisation ORG_ID. The user's API keys
follow at once: to member, they lose agent:write and admin:all (a key left with no scope is
revoked); to owner or admin, they take the new role with their scopes unchanged.
${COMMON}`,
  options: ORG_OPTIONS,
  positionals: { min: 3, max: 3 },
  async run({ values, positionals }) {
    return withOrgs(this.name, values, positionals, async (admin, [orgId, userId, role]) => {
      const user = await admin.setRole(orgId, userId, role as Role);
      if (!user) {
        console.error(`proofgate orgs set-role: no user ${userId} in organisation ${orgId}`);
        return 1;
      }
      console.log(`${user.id} (${user.email}) in ${orgId}: role ${user.role}`);
      return 0;
    });
  },
});

export const orgsListCommand: Command = defineCommand({
  name: 'orgs list',
  summary: 'list organisations with their plans and users (operator, on the data directory)',
  usage: `proofgate orgs list [--data-dir DIR] [--config PATH]

Prints one JSON object per organisation: id, name, plan, users (id, email, role).
${COMMON}`,
  options: ORG_OPTIONS,
  async run({ values, positionals }) {
    return withOrgs(this.name, values, positionals, async (admin) => {
      for (const o of await admin.accounts.listOrgs()) {
        const users = (await admin.accounts.listUsers(o.id)).map((u) => ({ id: u.id, email: u.email, role: u.role }));
        console.log(JSON.stringify({ id: o.id, name: o.name, plan: o.tier, users }));
      }
      return 0;
    });
  },
});

export const usersHashPasswordCommand: Command = defineCommand({
  name: 'users hash-password',
  summary: 'print the password_hash of a bootstrap-file user (password read from stdin)',
  usage: `proofgate users hash-password < password.txt

Reads a password from standard input (one line) and prints the scrypt password_hash object to put
under a user in SVC_BOOTSTRAP_FILE. The password itself is never written anywhere.`,
  options: {},
  async run() {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
    if (password.length < 8) {
      console.error('proofgate users hash-password: the password must have at least 8 characters');
      return 2;
    }
    console.log(JSON.stringify(await hashPassword(password)));
    return 0;
  },
});
