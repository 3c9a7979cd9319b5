import t from 'tap';
import health from '../../plugins/health/index.js';
import { createAuthPlugin } from '../../plugins/auth/index.js';
import { startServer, builtinsWithoutEngines, type TestServer } from '../helpers/server.js';
import { bearer, createKey, signup, tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 38 item 1: a key never acts for a user other than the caller unless the caller holds every
 * power of that user, operator status included. Rotation hands the caller a key acting for the
 * target's user, so another user's key is rotated only by that user or by an operator; and an
 * organisation's admin cannot lock the platform operator out by revoking the operator's key.
 */
const dataDir = tempDir(t, 'proofgate-test-');
// the operator must exist before the server is configured with its id
const boot = await startServer({ plugins: [health, createAuthPlugin()], dataDir });
const op = await tenant(boot, ['verify:read', 'admin:all']);
await boot.close();
const s: TestServer = await startServer({
  plugins: [...builtinsWithoutEngines, verificationTestPlugin],
  dataDir,
  config: { auth: { operator_user_ids: [op.user.id], anonymous_rate_per_minute: 1000 } },
});
t.teardown(() => s.close());

/** a user signed up elsewhere, moved into `orgId` with `role` (no route manages members yet), signed in again */
async function member(orgId: string, role: 'admin' | 'member') {
  const u = await signup(s);
  await s.kernel.app.store.collection<Record<string, unknown>>('auth.users').update(u.user.id, (cur) => ({ ...cur!, org_id: orgId, role }));
  const r = await s.request('POST', '/auth/signin', { body: { email: u.user.email, password: 'correct horse battery' } });
  if (r.status !== 200) throw new Error(`signin: ${r.status} ${r.text}`);
  return { token: r.body.access_token as string, userId: u.user.id };
}

const rotate = (apiKey: string, key_id: string) => s.request('POST', '/admin/keys/rotate', { apiKey, body: { key_id } });
const patchOrg = (apiKey: string, orgId: string) => s.request('PATCH', `/admin/orgs/${orgId}`, { apiKey, body: { plan: 'pro' } });

t.test("an admin of the operator's own organisation does not become the operator by rotating its key", async (t) => {
  const admin = await member(op.orgId, 'admin');
  const adminKey = await createKey(s, admin.token, { name: 'org admin', scopes: ['verify:read', 'admin:all'] });
  const victim = await tenant(s);
  t.equal((await patchOrg(adminKey.key, victim.orgId)).status, 403, 'the admin is no operator to begin with');

  const r = await rotate(adminKey.key, op.keyId);
  t.equal(r.status, 403, 'rotating the operator key is refused');
  t.equal(r.body.code, 'insufficient_scope');
  t.match(r.headers.get('content-type'), /^application\/problem\+json/);
  t.notOk(r.body.key, 'no key handed out');
  t.match(r.body.detail, /another user/);

  t.equal((await patchOrg(op.key, victim.orgId)).status, 200, 'the operator key still works: not revoked');
  const mcp = await s.request('GET', '/admin/mcp/servers', { apiKey: adminKey.key });
  t.equal(mcp.status, 403, 'the admin still cannot reach /admin/mcp');
  const listed = await s.request('GET', '/auth/api-keys', { headers: bearer(op.token) });
  t.equal(listed.body.keys.filter((k: { created_by: string }) => k.created_by === op.user.id).length, 1, 'no successor acting for the operator exists');
});

t.test("an organisation admin cannot revoke the operator's key (lock the platform operator out)", async (t) => {
  const admin = await member(op.orgId, 'admin');
  const opKey2 = await createKey(s, op.token, { name: 'operator second', scopes: ['verify:read', 'admin:all'] });
  const r = await s.request('DELETE', `/auth/api-keys/${opKey2.id}`, { headers: bearer(admin.token) });
  t.equal(r.status, 403);
  t.equal(r.body.code, 'insufficient_scope');
  t.equal((await patchOrg(opKey2.key, op.orgId)).status, 200, 'the operator key still works');
  const self = await s.request('DELETE', `/auth/api-keys/${opKey2.id}`, { headers: bearer(op.token) });
  t.equal(self.status, 200, 'the operator revokes its own key');
});

t.test("an admin does not become the owner by rotating the owner's key", async (t) => {
  const owner = await tenant(s, ['verify:read', 'attestation:read', 'admin:all']);
  const admin = await member(owner.orgId, 'admin');
  const adminKey = await createKey(s, admin.token, { name: 'admin', scopes: ['verify:read', 'attestation:read', 'admin:all'] });
  const r = await rotate(adminKey.key, owner.keyId);
  t.equal(r.status, 403, 'the successor would act for the owner');
  t.notOk(r.body.key);
  t.equal((await s.request('POST', '/test/verify', { apiKey: owner.key, body: { outcome: 'verified' } })).status, 200, 'the owner key still works');

  // a member's key, weaker in role and scopes, is another user's too
  const m = await member(owner.orgId, 'member');
  const mKey = await createKey(s, m.token, { name: 'member' });
  t.equal((await rotate(adminKey.key, mKey.id)).status, 403, "another user's weaker key: the same rule");
  const own = await rotate(mKey.key, mKey.id);
  t.equal(own.status, 201, 'the member still rotates its own key');
});

t.test("an operator may rotate another user's key of its organisation; a user every key of its own", async (t) => {
  const admin = await member(op.orgId, 'admin');
  const adminKey = await createKey(s, admin.token, { name: 'admin', scopes: ['verify:read'] });
  const r = await rotate(op.key, adminKey.id);
  t.equal(r.status, 201, 'an operator holds every power of the admin');
  const second = await createKey(s, admin.token, { name: 'admin second', scopes: ['verify:read'] });
  const full = await createKey(s, admin.token, { name: 'admin full', scopes: ['verify:read', 'admin:all'] });
  t.equal((await rotate(full.key, second.id)).status, 201, 'a user rotates its own other key');
});
