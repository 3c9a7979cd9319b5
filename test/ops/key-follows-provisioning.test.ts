import t from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import health from '../../plugins/health/index.js';
import ops from '../../plugins/ops/index.js';
import { createAuthPlugin, hashPassword, type Accounts, type ApiKeys } from '../../plugins/auth/index.js';
import type { Plugin } from '../../core/types.js';
import { createProvisioning } from '../../sidecar/provision/plugin.js';
import { startServer, TEST_SECRETS, type TestServer } from '../helpers/server.js';
import { bearer, createKey, signup, verificationTestPlugin } from '../helpers/tenancy.js';
import { nodeCommand } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The other writers of a user's role or existence — the bootstrap file (docs/ops.md) and
 * `proofgate orgs set-role` — make the user's API keys follow as PATCH /admin/orgs does.
 */
const run = promisify(execFile);
const CLI = new URL('../../sidecar/cli.js', import.meta.url).pathname;
const dir = tempDir(t, 'pg-keyfollow-');

const PASSWORD = 'a long operator password';
const declaredKey = 'svc_live_' + 'K'.repeat(43);
const env = { DECLARED_KEY: declaredKey };

interface Who {
  id: string;
  role: string;
}
async function file(name: string, users: Who[], o: { prune?: boolean } = {}): Promise<string> {
  const password_hash = await hashPassword(PASSWORD);
  const doc = {
    ...(o.prune ? { prune: true } : {}),
    organizations: [
      {
        id: 'org_kf',
        name: 'key follow',
        users: users.map((u) => ({ ...u, email: `${u.id}@example.com`, password_hash })),
        api_keys: [{ id: 'key_declared', name: 'declared', key_env: 'DECLARED_KEY', user: 'usr_a', scopes: ['verify:read', 'admin:all'] }],
      },
    ],
  };
  const p = join(dir, name);
  writeFileSync(p, stringify(doc));
  return p;
}

function start(path: string, dataDir: string, extra: Plugin[] = []): Promise<TestServer> {
  const prov = createProvisioning({ env });
  return startServer({
    plugins: [prov.config, health, createAuthPlugin(), ops, verificationTestPlugin, ...extra, prov.data],
    dataDir,
    config: { bootstrap_file: path, auth: { anonymous_rate_per_minute: 1000 } },
  });
}

async function signin(s: TestServer, userId: string): Promise<string> {
  const r = await s.request('POST', '/auth/signin', { body: { email: `${userId}@example.com`, password: PASSWORD } });
  if (r.status !== 200) throw new Error(`signin ${r.status} ${r.text}`);
  return r.body.access_token;
}

const threats = (s: TestServer, key: string, org = 'org_kf') => s.request('GET', `/admin/security/threats/${org}`, { apiKey: key });
const verify = (s: TestServer, key: string) => s.request('POST', '/test/verify', { apiKey: key, body: {} });

t.test('a bootstrap file that demotes a user downgrades the keys they made', async (t) => {
  const dataDir = tempDir(t, 'pg-keyfollow-data-');
  let s = await start(await file('v1.yaml', [{ id: 'usr_a', role: 'owner' }, { id: 'usr_b', role: 'admin' }]), dataDir);
  const token = await signin(s, 'usr_b');
  const both = await createKey(s, token, { name: 'both', scopes: ['verify:read', 'admin:all'] });
  const only = await createKey(s, token, { name: 'only', scopes: ['admin:all'] });
  t.equal((await threats(s, both.key)).status, 200);
  await s.close();

  s = await start(await file('v2.yaml', [{ id: 'usr_a', role: 'owner' }, { id: 'usr_b', role: 'member' }]), dataDir);
  t.teardown(() => s.close());
  t.equal((await threats(s, both.key)).status, 403, 'admin:all taken from the demoted user key');
  t.equal((await verify(s, both.key)).status, 200, 'verify:read kept');
  t.equal((await verify(s, only.key)).status, 401, 'a key left with no scope is revoked');
  t.equal((await threats(s, declaredKey)).status, 200, 'a key the file declares keeps what the file gives it');
});

t.test('prune revokes the keys of the users it deletes, one written just before the delete included', async (t) => {
  const dataDir = tempDir(t, 'pg-keyfollow-data-');
  let s = await start(await file('p1.yaml', [{ id: 'usr_a', role: 'owner' }, { id: 'usr_b', role: 'admin' }]), dataDir);
  const early = await createKey(s, await signin(s, 'usr_b'), { name: 'early', scopes: ['verify:read', 'admin:all'] });
  await s.close();

  // another replica sharing the store answers POST /auth/api-keys for usr_b after prune revoked the
  // undeclared keys and just before it deletes usr_b: that key must not outlive its creator
  let late: string | undefined;
  const replica: Plugin = {
    name: 'other-replica',
    needs: ['auth.accounts', 'auth.keys'],
    register(app) {
      const accounts = app.service('auth.accounts')!;
      const keys = app.service('auth.keys')!;
      const deleteUser = accounts.deleteUser.bind(accounts);
      accounts.deleteUser = async (userId) => {
        if (userId === 'usr_b') late = (await keys.create({ orgId: 'org_kf', userId, role: 'admin', name: 'late', scopes: ['admin:all'] })).key;
        return deleteUser(userId);
      };
    },
  };
  s = await start(await file('p2.yaml', [{ id: 'usr_a', role: 'owner' }], { prune: true }), dataDir, [replica]);
  t.teardown(() => s.close());
  t.ok(late, 'the late key was written during provisioning');
  t.equal((await verify(s, early.key)).status, 401);
  t.equal((await verify(s, late!)).status, 401, 'the key written just before the delete is revoked too');
  t.equal((await verify(s, declaredKey)).status, 200);
});

t.test('proofgate orgs set-role demotes the keys of a user beside a running server', async (t) => {
  const s = await startServer({ plugins: [health, createAuthPlugin(), ops, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 1000 } } });
  t.teardown(() => s.close());
  const x = await signup(s);
  const k = await createKey(s, x.token, { name: 'k', scopes: ['verify:read', 'admin:all'] });
  t.equal((await threats(s, k.key, x.user.org_id)).status, 200);
  const cliEnv = { PATH: process.env.PATH, SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.api_key_lookup_secret, SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key, SVC_DATA_DIR: s.dataDir };
  const r = await run(...nodeCommand([CLI, 'orgs', 'set-role', x.user.org_id, x.user.id, 'member']), { env: cliEnv, cwd: dir });
  t.match(r.stdout, /role member/);
  t.equal((await threats(s, k.key, x.user.org_id)).status, 403, 'the running server reads the downgraded key');
  t.equal((await verify(s, k.key)).status, 200);
  const list = await s.request('GET', '/auth/api-keys', { headers: bearer(x.token) });
  t.same(list.body.keys[0].scopes, ['verify:read']);
});
