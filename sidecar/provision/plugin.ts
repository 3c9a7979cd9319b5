import { randomBytes } from 'node:crypto';
import type { App, Plugin, ServiceKey, Services } from '../../core/types.js';
import type { Accounts, ApiKeys, Plans, SecurityEvents, SenderOwners } from '../../plugins/auth/index.js';
import type { Agents } from '../../plugins/agents/index.js';
import { loadBootstrap, type BootstrapFile } from './file.js';

const FILE_SERVICE = 'provision.bootstrap';

declare module '../../core/types.js' {
  interface Services {
    'provision.bootstrap': BootstrapFile;
  }
}

/**
 * The bootstrap file is applied in two steps, as two plugins of the built-in list:
 * - `provision-config`, first: reads and validates the file (any problem stops start-up), adds its
 *   plans to the kernel's limits and provides the file: the a2a plugin, which owns its settings,
 *   adds the file's trust entries to its own as it registers;
 * - `provision`, last: writes organisations, users, API keys and agents through the auth and agents
 *   plugins' exported APIs, before the server accepts a request.
 * Applied at every start: create or update by id, never a duplicate; nothing the file does not
 * declare is touched unless `prune: true` (and then only inside the declared organisations).
 */
export function createProvisioning(o: { env?: NodeJS.ProcessEnv } = {}): { config: Plugin; data: Plugin } {
  const env = () => o.env ?? process.env;
  const config: Plugin = {
    name: 'provision-config',
    provides: [FILE_SERVICE],
    register(app: App) {
      const path = app.config.bootstrap_file;
      if (!path) return;
      const b = loadBootstrap(path, { mode: app.config.mode, env: env() });
      app.provide(FILE_SERVICE, b);
      if (b.plans) app.config.limits.plans = { ...app.config.limits.plans, ...b.plans };
    },
  };
  const data: Plugin = {
    name: 'provision',
    // writes through these after their plugins registered; absent, a file that declares what they hold is
    // refused. a2a.signer: a2a registers first, so the sender ids its trust entries assign are owned
    optional: [FILE_SERVICE, 'auth.accounts', 'auth.keys', 'auth.plans', 'security.events', 'auth.sender_owners', 'agents.registry', 'a2a.signer'],
    async register(app: App) {
      const b = app.service(FILE_SERVICE);
      if (!b) return;
      const summary = await applyBootstrap(app, b, env());
      app.log.info(summary, 'bootstrap file applied');
    },
  };
  return { config, data };
}

function need<K extends ServiceKey>(app: App, name: K, why: string): NonNullable<Services[K]> {
  const s = app.service(name);
  if (!s) throw new Error(`bootstrap file: ${why} needs the ${name} service (is its plugin disabled?)`);
  return s as NonNullable<Services[K]>;
}

/**
 * The declared secrets, checked before anything is written: each in its format, and no key (or
 * agent token) declared twice — the same Secret under two ids, or a plaintext and its digest.
 * Found only when the second was written, either stopped start-up with the organisations before it
 * already applied.
 */
function checkSecrets(orgs: NonNullable<BootstrapFile['organizations']>, env: NodeJS.ProcessEnv, o: { digest: (secret: string) => string; keyPattern: RegExp; tokenPattern: RegExp }): void {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  const check = (what: string, value: string | undefined, digest: string | undefined, pattern: RegExp, format: string) => {
    if (value !== undefined && !pattern.test(value)) return problems.push(`${what}: the value is not ${format}`);
    const d = value !== undefined ? o.digest(value) : digest!;
    const first = seen.get(d);
    if (first) problems.push(`${what} is the same secret as ${first}`);
    else seen.set(d, what);
  };
  for (const org of orgs) {
    for (const k of org.api_keys ?? []) {
      const value = k.key_env !== undefined ? env[k.key_env]!.trim() : undefined;
      check(`organizations[${org.id}].api_keys[${k.id}]`, value, k.digest, o.keyPattern, 'a v7.2 key (svc_live_ or svc_test_ and 43 base64url characters; `proofgate keys new` makes one)');
    }
    for (const a of org.agents ?? []) {
      const value = a.token_env !== undefined ? env[a.token_env]!.trim() : undefined;
      check(`organizations[${org.id}].agents[${a.agent_id}]`, value, a.token_digest, o.tokenPattern, 'an agent token (svc_agent_ and 43 base64url characters)');
    }
  }
  if (problems.length) throw new Error(`bootstrap file:\n  - ${problems.join('\n  - ')}`);
}

/**
 * A declared key's a2a_senders must be ids its organisation owns (plugins/auth/sender-owners.ts).
 * An id owned by another organisation, or by none, stops start-up: nothing a tenant does makes it
 * so (HTTP-registered agents get random ids; trust entries are the operator's), so it is a mistake
 * in the file. One exception: an agent the file declares here that an administrator has since
 * deleted (it stays deleted) — refusing to start would let a tenant's deletion stop the server,
 * so the key is written with a binding that authenticates nobody until the agent comes back.
 */
async function checkBindings(app: App, owners: SenderOwners, orgId: string, keyId: string, senders: readonly string[], declaredAgents: ReadonlySet<string>): Promise<void> {
  const bad: string[] = [];
  for (const id of new Set(senders)) {
    const owner = await owners.ownerOf(id);
    if (owner === orgId) continue;
    if (owner === null && declaredAgents.has(id)) {
      app.log.warn({ key_id: keyId, org_id: orgId, sender: id }, 'bootstrap: this key is bound to a declared agent that was deleted; the binding authenticates nobody');
    } else bad.push(id);
  }
  if (bad.length) {
    throw new Error(`bootstrap file: organizations[${orgId}].api_keys[${keyId}]: a2a_senders ${bad.map((i) => JSON.stringify(i)).join(', ')} not owned by the organisation: declare the agent in its agents, or give the id's a2a_trust / trusted_agents entry org_id: ${JSON.stringify(orgId)}`);
  }
}

export async function applyBootstrap(app: App, b: BootstrapFile, env: NodeJS.ProcessEnv): Promise<Record<string, number>> {
  const n = { organizations: 0, users: 0, keys_created: 0, keys_updated: 0, keys_revoked_kept: 0, agents: 0, pruned: 0 };
  const orgs = b.organizations ?? [];
  if (orgs.length === 0) return n;
  // imported only when there is something to provision: without a bootstrap file a disabled
  // plugin's modules stay unloaded, as the built-in list intends
  const { creatorChanged, hashPassword, KEY_PATTERN, provisionApiKey, provisionedPlanOf, revokeUndeclaredKeys } = await import('../../plugins/auth/index.js');
  const { AGENT_TOKEN_PATTERN, provisionAgent, revokeUndeclaredAgents } = await import('../../plugins/agents/index.js');
  const accounts = need(app, 'auth.accounts', 'organisations');
  const keys = need(app, 'auth.keys', 'API keys');
  const plans = need(app, 'auth.plans', 'plans');
  const events = app.service('security.events') ?? null;
  const owners = need(app, 'auth.sender_owners', 'a2a_senders');
  for (const org of orgs) {
    if (org.plan !== undefined && !plans.has(org.plan)) {
      throw new Error(`bootstrap file: organisation ${org.id}: unknown plan ${JSON.stringify(org.plan)}; allowed: ${plans.names().join(', ')}`);
    }
  }
  checkSecrets(orgs, env, { digest: (v) => keys.digest(v), keyPattern: KEY_PATTERN, tokenPattern: AGENT_TOKEN_PATTERN });
  for (const org of orgs) {
    await accounts.upsertOrg({ id: org.id, name: org.name, plan: org.plan, planIfNew: provisionedPlanOf(app.config) });
    n.organizations++;
    const users = org.users ?? [];
    const declared = new Set((org.api_keys ?? []).map((k) => k.id));
    for (const u of users) {
      const existing = await accounts.user(u.id);
      // no declared hash: keep the one the user has, else one nobody knows (the user cannot sign in)
      const password = u.password_hash ?? existing?.password ?? (await hashPassword(randomBytes(32).toString('base64url')));
      const { previousRole, user } = await accounts.upsertUser({ id: u.id, email: u.email, orgId: org.id, role: u.role ?? 'member', password });
      // the keys the user made over HTTP follow the role the file now gives them (docs/auth.md);
      // the keys the file declares are left to the file, which writes them just below: revoking
      // one here would keep it revoked at every later start ('revoked_kept')
      if (previousRole !== null && previousRole !== user.role) {
        await creatorChanged(keys, events, org.id, u.id, user.role, declared);
      }
      n.users++;
    }
    const agentDecls = org.agents ?? [];
    const registry = agentDecls.length || b.prune ? app.service('agents.registry') : undefined;
    if (agentDecls.length && !registry) throw new Error('bootstrap file: agents need the agents plugin');
    for (const a of agentDecls) {
      const outcome = await provisionAgent(app.store, (t) => keys.digest(t), {
        agentId: a.agent_id,
        orgId: org.id,
        name: a.name,
        agentType: a.agent_type ?? 'autonomous',
        description: a.description ?? null,
        permissions: a.permissions ?? [],
        maxCostPerDay: a.max_cost_per_day ?? null,
        token: a.token_env !== undefined ? env[a.token_env]!.trim() : undefined,
        tokenDigest: a.token_digest,
      });
      if (outcome === 'revoked_kept') app.log.warn({ agent_id: a.agent_id }, 'bootstrap: this declared agent was revoked and stays revoked');
      n.agents++;
    }
    // after the organisation's agents: a key may be bound only to sender ids the organisation owns
    // (issue 38), and an agent the file declares here is one of them
    for (const k of org.api_keys ?? []) {
      await checkBindings(app, owners, org.id, k.id, k.a2a_senders ?? [], new Set(agentDecls.map((a) => a.agent_id)));
      const user = users.find((u) => u.id === (k.user ?? users[0]?.id))!;
      const outcome = await provisionApiKey(app.store, keys, {
        id: k.id,
        orgId: org.id,
        userId: user.id,
        role: user.role ?? 'member',
        name: k.name,
        scopes: k.scopes,
        a2aSenders: k.a2a_senders,
        key: k.key_env !== undefined ? env[k.key_env]!.trim() : undefined,
        digest: k.digest,
        prefix: k.prefix,
      });
      if (outcome === 'created' || outcome === 'replaced') n.keys_created++;
      else if (outcome === 'updated') n.keys_updated++;
      else if (outcome === 'revoked_kept') {
        n.keys_revoked_kept++;
        app.log.warn({ key_id: k.id, org_id: org.id }, 'bootstrap: this declared API key was revoked and stays revoked; put a new key in the Secret');
      }
    }
    if (b.prune) {
      n.pruned += (await revokeUndeclaredKeys(keys, org.id, declared)).length;
      if (registry) n.pruned += (await revokeUndeclaredAgents(registry, org.id, new Set(agentDecls.map((a) => a.agent_id)))).length;
      const keepUsers = new Set(users.map((u) => u.id));
      for (const u of await accounts.listUsers(org.id)) {
        if (keepUsers.has(u.id) || !(await accounts.deleteUser(u.id))) continue;
        n.pruned++;
        // after the delete: a key another replica wrote for this user since the revocation above
        // is caught here, or by that replica's re-read of its creator (plugins/auth/creators.ts)
        await creatorChanged(keys, events, org.id, u.id, null);
      }
    }
  }
  return n;
}
