import t from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import health from '../../plugins/health/index.js';
import audit from '../../plugins/audit/index.js';
import ops from '../../plugins/ops/index.js';
import agents from '../../plugins/agents/index.js';
import { createAuthPlugin, KEY_COLLECTIONS } from '../../plugins/auth/index.js';
import { createProvisioning } from '../../sidecar/provision/plugin.js';
import { startServer, TEST_SECRETS, type TestServer } from '../helpers/server.js';
import { verificationTestPlugin } from '../helpers/tenancy.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { settingsIn } from '../../core/plugin/settings.js';
import { a2aSettings } from '../../plugins/a2a/settings.js';

const run = promisify(execFile);
const CLI = new URL('../../sidecar/cli.js', import.meta.url).pathname;

const dir = tempDir(t, 'pg-bootstrap-');

async function keysNew(args: string[]): Promise<{ key: string; digest: string; entry: Record<string, unknown> }> {
  const { stdout } = await run(...nodeCommand([CLI, 'keys', 'new', '--json', ...args]), {
    env: { PATH: process.env.PATH, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret, SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key },
    cwd: dir,
  });
  return JSON.parse(stdout);
}

function writeBootstrap(name: string, doc: unknown, yaml = true): string {
  const p = join(dir, name);
  writeFileSync(p, yaml ? stringify(doc) : JSON.stringify(doc));
  return p;
}

function start(file: string, env: NodeJS.ProcessEnv, o: { dataDir?: string; config?: ConfigOverrides } = {}): Promise<TestServer> {
  const prov = createProvisioning({ env });
  return startServer({
    plugins: [prov.config, health, createAuthPlugin(), agents, audit, ops, verificationTestPlugin, prov.data],
    dataDir: o.dataDir,
    config: { bootstrap_file: file, ...o.config },
  });
}

const secretKey = 'svc_live_' + 'A'.repeat(43);
const agentToken = 'svc_agent_' + 'B'.repeat(43);

function doc(scopes: string[], extra: Record<string, unknown> = {}) {
  return {
    plans: { team: { per_minute: 3, per_day: null } },
    organizations: [
      {
        id: 'org_billing',
        name: 'billing',
        plan: 'team',
        users: [{ id: 'usr_ops', email: 'ops@example.com', role: 'owner' }],
        api_keys: [{ id: 'key_runtime', name: 'runtime', key_env: 'RUNTIME_KEY', scopes, a2a_senders: ['billing-agent'] }],
        agents: [{ agent_id: 'billing-agent', name: 'billing agent', token_env: 'AGENT_TOKEN' }],
        ...extra,
      },
    ],
    a2a_trust: [{ agent_id: 'billing-agent', allowed_receivers: ['ledger-agent'], jwk: { kty: 'OKP', crv: 'Ed25519', x: 'x' } }],
  };
}
const env = { RUNTIME_KEY: secretKey, AGENT_TOKEN: agentToken };

t.test('two fresh data directories started with the same bootstrap accept the same key', async (t) => {
  const file = writeBootstrap('same.yaml', doc(['verify:read']));
  const a = await start(file, env);
  t.teardown(() => a.close());
  const b = await start(file, env);
  t.teardown(() => b.close());
  t.not(a.dataDir, b.dataDir);
  for (const s of [a, b]) {
    const r = await s.request('POST', '/test/verify', { apiKey: secretKey, body: { outcome: 'verified' } });
    t.equal(r.status, 200, r.text);
    t.equal(r.headers.get('ratelimit-limit'), '3', 'the plan declared in the file');
    const rec = await s.kernel.app.store.collection<Record<string, unknown>>(KEY_COLLECTIONS.byDigest).list();
    t.equal(rec.length, 1, 'one key record');
    t.same(rec[0].value.a2a_senders, ['billing-agent'], 'a2a_senders on the key record');
    t.equal(rec[0].value.id, 'key_runtime');
    const act = await s.request('GET', '/agents/billing-agent/activity', { headers: { 'x-agent-token': agentToken } });
    t.equal(act.status, 200, 'the declared agent token works');
  }
  // the a2a plugin (not loaded here) adds these to its own trust list as it registers (test/a2a/sender-ownership.test.ts)
  const trust = a.kernel.app.service('provision.bootstrap')?.a2a_trust ?? [];
  t.same(trust.at(-1), { agent_id: 'billing-agent', allowed_receivers: ['ledger-agent'], jwk: { kty: 'OKP', crv: 'Ed25519', x: 'x' } }, 'trust entries pass through, jwk included');
  t.equal(settingsIn(a.kernel.app.config, a2aSettings).trusted_agents, '', "no other plugin writes into a2a's settings (the default, as configured)");
  t.equal((await a.request('POST', '/test/verify', { apiKey: 'svc_live_' + 'C'.repeat(43), body: {} })).status, 401, 'an undeclared key is not accepted');
});

t.test('restarting with a changed file updates, never duplicates, and deletes only with prune', async (t) => {
  const dataDir = tempDir(t, 'pg-bootstrap-data-');
  // bound to the agent the file declares in the same organisation: a declared key may be bound only to an id its organisation owns (issue 38)
  const fresh = await keysNew(['--scopes', 'verify:read', '--a2a-senders', 'billing-agent', '--id', 'key_ci', '--name', 'ci']);
  t.match(fresh.key, /^svc_live_[A-Za-z0-9_-]{43}$/);
  t.match(fresh.digest, /^[0-9a-f]{64}$/);
  const first = doc(['verify:read']);
  first.organizations[0].api_keys.push(fresh.entry as never);
  let s = await start(writeBootstrap('v1.json', first, false), env, { dataDir });
  const threats = (key: string) => s.request('GET', '/admin/security/threats/org_billing', { apiKey: key });
  t.equal((await threats(secretKey)).status, 403, 'verify:read only');
  t.equal((await s.request('POST', '/test/verify', { apiKey: fresh.key, body: {} })).status, 200, 'a key declared by the digest `keys new` printed');
  await s.close();

  // same id, more scopes; the digest-declared key dropped from the file, no prune
  s = await start(writeBootstrap('v2.yaml', doc(['verify:read', 'admin:all'])), env, { dataDir });
  t.equal((await threats(secretKey)).status, 200, 'scopes updated at restart');
  t.equal((await s.request('POST', '/test/verify', { apiKey: fresh.key, body: {} })).status, 200, 'undeclared but not pruned: kept');
  const records = await s.kernel.app.store.collection<{ id: string }>(KEY_COLLECTIONS.byDigest).list();
  t.equal(records.filter((r) => r.value.id === 'key_runtime').length, 1, 'never duplicated');
  await s.close();

  s = await start(writeBootstrap('v3.yaml', { ...doc(['verify:read', 'admin:all']), prune: true }), env, { dataDir });
  t.equal((await s.request('POST', '/test/verify', { apiKey: fresh.key, body: {} })).status, 401, 'prune: true revokes what the file no longer declares');
  t.equal((await threats(secretKey)).status, 200);
  await s.close();

  // the Secret holds a new key: the declared id now answers to it, the old value stops working
  const rotated = 'svc_live_' + 'D'.repeat(43);
  s = await start(writeBootstrap('v3.yaml', { ...doc(['verify:read', 'admin:all']), prune: true }), { ...env, RUNTIME_KEY: rotated }, { dataDir });
  t.equal((await threats(rotated)).status, 200);
  t.equal((await threats(secretKey)).status, 401);
  await s.close();
});

t.test('sidecar mode: sign-up closed, one organisation, default plan unlimited', async (t) => {
  const d = doc(['verify:read']);
  delete (d.organizations[0] as { plan?: string }).plan;
  const s = await start(writeBootstrap('sidecar.yaml', d), env, { config: { mode: 'sidecar' } });
  t.teardown(() => s.close());
  const signup = await s.request('POST', '/auth/signup', { body: { email: 'x@example.com', password: 'correct horse battery', organization_name: 'x' } });
  t.equal(signup.status, 403);
  t.equal(signup.body.code, 'signup_closed');
  const r = await s.request('POST', '/test/verify', { apiKey: secretKey, body: {} });
  t.equal(r.status, 200);
  t.equal(r.headers.get('ratelimit-limit'), null, 'unlimited: no limit to report');
  const two = doc(['verify:read']);
  two.organizations.push({ ...two.organizations[0], id: 'org_two', name: 'two', api_keys: [], agents: [], users: [] });
  await t.rejects(start(writeBootstrap('two.yaml', two), env, { config: { mode: 'sidecar' } }), /exactly one organisation/);
  const open = await start(writeBootstrap('sidecar.yaml', d), env, { config: { mode: 'sidecar', auth: { signup_enabled: true } } });
  const up = await open.request('POST', '/auth/signup', { body: { email: 'y@example.com', password: 'correct horse battery', organization_name: 'y' } });
  t.equal(up.status, 201, 'unless enabled');
  const k = await open.request('POST', '/auth/api-keys', { headers: { authorization: `Bearer ${up.body.access_token}` }, body: { name: 'k' } });
  const call = await open.request('POST', '/test/verify', { apiKey: k.body.key, body: {} });
  t.equal(call.headers.get('ratelimit-limit'), '60', 'an open sign-up gets the free plan, not unlimited');
  t.equal((await open.request('POST', '/test/verify', { apiKey: secretKey, body: {} })).headers.get('ratelimit-limit'), null, 'the declared organisation keeps unlimited');
  await open.close();
});

t.test('a bad file stops start-up with every problem named', async (t) => {
  const bad = writeBootstrap('bad.yaml', {
    organizations: [
      { id: 'org_a', name: 'a', users: [], api_keys: [{ id: 'k1', name: 'k', key_env: 'MISSING_VAR', scopes: ['verify:write'] }] },
    ],
  });
  await t.rejects(start(bad, {}), /must be one of "verify:read", "agent:write", "attestation:read", "admin:all"/);
  const missing = writeBootstrap('missing.yaml', { organizations: [{ id: 'org_a', name: 'a', users: [{ id: 'u', email: 'u@example.com' }], api_keys: [{ id: 'k1', name: 'k', key_env: 'MISSING_VAR' }] }] });
  await t.rejects(start(missing, {}), /MISSING_VAR is not set/);
  await t.rejects(start(writeBootstrap('plan.yaml', { organizations: [{ id: 'org_a', name: 'a', plan: 'gold' }] }), {}), /unknown plan "gold"; allowed: free, pro, enterprise, unlimited/);
  const short = writeBootstrap('short.yaml', { organizations: [{ id: 'org_a', name: 'a', users: [{ id: 'u', email: 'u@example.com' }], api_keys: [{ id: 'k1', name: 'k', key_env: 'SHORT' }] }] });
  await t.rejects(start(short, { SHORT: 'svc_live_short' }), /not a v7\.2 key/);
  await t.rejects(start(join(dir, 'nope.yaml'), {}), /not found/);
});

t.test('a key declared twice, or in the wrong format, stops start-up before anything is written', async (t) => {
  const dataDir = tempDir(t, 'pg-bootstrap-dup-');
  const org = (id: string, keyEnv: string) => ({ id, name: id, users: [{ id: `usr_${id}`, email: `${id}@example.com` }], api_keys: [{ id: `key_${id}`, name: 'k', key_env: keyEnv }] });
  // the same Secret mounted under two variables, for two organisations
  const dup = writeBootstrap('dup.yaml', { organizations: [org('org_first', 'KEY_ONE'), org('org_second', 'KEY_TWO')] });
  await t.rejects(start(dup, { KEY_ONE: secretKey, KEY_TWO: secretKey }, { dataDir }), /api_keys\[key_org_second\] is the same secret as organizations\[org_first\]\.api_keys\[key_org_first\]/);
  await t.rejects(start(dup, { KEY_ONE: secretKey, KEY_TWO: 'svc_live_short' }, { dataDir }), /api_keys\[key_org_second\]: the value is not a v7\.2 key/);
  const s = await start(writeBootstrap('empty.yaml', {}), {}, { dataDir });
  t.teardown(() => s.close());
  t.equal(await s.kernel.app.store.collection('auth.orgs').get('org_first'), undefined, 'the first organisation was not written');
  t.equal((await s.request('POST', '/test/verify', { apiKey: secretKey, body: {} })).status, 401, 'nor its key');
});

t.test('orgs set-plan / set-role on the data directory', async (t) => {
  const file = writeBootstrap('cli.yaml', doc(['verify:read']));
  const s = await start(file, env);
  const dataDir = s.dataDir;
  const cliEnv = { PATH: process.env.PATH, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret, SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key, SVC_DATA_DIR: dataDir };
  const cli = (args: string[]) => run(...nodeCommand([CLI, ...args]), { env: cliEnv, cwd: dir }).then(
    (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
  );
  const bad = await cli(['orgs', 'set-plan', 'org_billing', 'gold']);
  t.equal(bad.code, 2);
  t.match(bad.err, /allowed: free, pro, enterprise, unlimited/);
  const team = await run(...nodeCommand([CLI, 'orgs', 'set-plan', 'org_billing', 'team']), { env: { ...cliEnv, SVC_BOOTSTRAP_FILE: file }, cwd: dir });
  t.match(team.stdout, /plan team/, 'a plan the bootstrap file declares is known to the CLI');
  const ok = await cli(['orgs', 'set-plan', 'org_billing', 'pro']);
  t.equal(ok.code, 0, ok.err);
  t.match(ok.out, /org_billing \(billing\): plan pro/);
  t.equal((await cli(['orgs', 'set-plan', 'org_none', 'pro'])).code, 1);
  const role = await cli(['orgs', 'set-role', 'org_billing', 'usr_ops', 'admin']);
  t.equal(role.code, 0, role.err);
  t.match((await cli(['orgs', 'set-role', 'org_billing', 'usr_ops', 'king'])).err, /allowed: owner, admin, member/);
  const list = await cli(['orgs', 'list']);
  t.same(JSON.parse(list.out.trim()), { id: 'org_billing', name: 'billing', plan: 'pro', users: [{ id: 'usr_ops', email: 'ops@example.com', role: 'admin' }] });
  await s.close();
  t.match((await cli(['keys', 'new', '--scopes', 'verify:all'])).err, /unknown scope "verify:all"; allowed: verify:read/);
});

t.test('a declared user signs in with the password behind its hash', async (t) => {
  const child = execFile(...nodeCommand([CLI, 'users', 'hash-password']), { env: { PATH: process.env.PATH }, cwd: dir });
  const out = new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => (buf += d));
    child.on('exit', (code) => (code === 0 ? resolve(buf) : reject(new Error(`exit ${code}`))));
  });
  child.stdin!.end('a long operator password\n');
  const hash = JSON.parse(await out);
  t.equal(hash.alg, 'scrypt');
  const d = doc(['verify:read']);
  (d.organizations[0].users[0] as Record<string, unknown>).password_hash = hash;
  const s = await start(writeBootstrap('pw.yaml', d), env);
  t.teardown(() => s.close());
  const ok = await s.request('POST', '/auth/signin', { body: { email: 'ops@example.com', password: 'a long operator password' } });
  t.equal(ok.status, 200, ok.text);
  t.equal(ok.body.user.id, 'usr_ops');
  t.equal(ok.body.user.org_id, 'org_billing');
  t.equal((await s.request('POST', '/auth/signin', { body: { email: 'ops@example.com', password: 'wrong password!!' } })).status, 401);
});
