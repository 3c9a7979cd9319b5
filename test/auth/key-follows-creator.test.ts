import t from 'tap';
import health from '../../plugins/health/index.js';
import { createAuthPlugin, KEY_COLLECTIONS, type ApiKeyRecord, type SecurityEvents } from '../../plugins/auth/index.js';
import { startServer, builtinsWithoutEngines, type TestServer } from '../helpers/server.js';
import { bearer, createKey, registerAgent, tenant, verificationTestPlugin } from '../helpers/tenancy.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * decisions §5: a key acts for the user who created it. An operator's demotion (PATCH
 * /admin/orgs/{org_id}, OrgAdmin.setRole) takes agent:write and admin:all from every key that user
 * made, revoking a key left with no scope; a promotion changes the keys' role, never their scopes.
 */
let server: Promise<{ s: TestServer; op: Awaited<ReturnType<typeof tenant>> }> | undefined;
function operated() {
  return (server ??= (async () => {
    // the operator must exist before the server is configured with its id
    // one directory for both servers, made before either: it goes after the second has closed
    const dataDir = tempDir(t, 'proofgate-test-');
    const boot = await startServer({ plugins: [health, createAuthPlugin()], dataDir });
    const op = await tenant(boot, ['verify:read', 'admin:all']);
    await boot.close();
    // a verification route needing verify:read (POST /test/verify) is all a key's scopes are tried
    // on: an engine's would add its warm-up and nothing these tests look at
    const s = await startServer({
      plugins: [...builtinsWithoutEngines, verificationTestPlugin],
      dataDir,
      config: { auth: { operator_user_ids: [op.user.id], anonymous_rate_per_minute: 1000 } },
    });
    t.teardown(() => s.close());
    return { s, op };
  })());
}

const ADMIN = ['verify:read', 'attestation:read', 'admin:all'];

t.test('demotion to member: the key loses admin:all at once, keeps the rest; an admin:all-only key is revoked', async (t) => {
  const { s, op } = await operated();
  const x = await tenant(s, ADMIN);
  const only = await createKey(s, x.token, { name: 'only-admin', scopes: ['admin:all'] });
  const threats = (key: string) => s.request('GET', `/admin/security/threats/${x.orgId}`, { apiKey: key });
  const verify = (key: string) => s.request('POST', '/test/verify', { apiKey: key, body: { outcome: 'verified' } });
  t.equal((await threats(x.key)).status, 200, 'admin:all works on an /admin route');
  t.equal((await verify(x.key)).status, 200);
  t.equal((await verify(only.key)).status, 200, 'admin:all satisfies verify:read');

  const since = new Date().toISOString();
  const r = await s.request('PATCH', `/admin/orgs/${x.orgId}`, { apiKey: op.key, body: { user_roles: { [x.user.id]: 'member' } } });
  t.equal(r.status, 200, r.text);

  const after = await threats(x.key);
  t.equal(after.status, 403, 'the demoted owner key no longer reaches /admin');
  t.equal(after.body.code, 'insufficient_scope');
  t.equal((await verify(x.key)).status, 200, 'and still verifies');
  t.equal((await verify(only.key)).status, 401, 'a key left with no scope is revoked');
  const list = await s.request('GET', '/auth/api-keys', { headers: bearer(x.token) });
  t.same(
    list.body.keys.map((k: { id: string; scopes: string[] }) => [k.id, k.scopes]),
    [[x.keyId, ['verify:read', 'attestation:read']]],
    'the listing shows the reduced scopes and no revoked key',
  );
  const rec = await keyRecord(s, x.keyId);
  t.equal(rec.role, 'member', 'the key acts with the role its creator now has');
  const events = await s.kernel.app.service('security.events')!.list(x.orgId, since);
  t.ok(events.some((e) => e.type === 'key_revoked' && e.key_id === only.id && e.detail === 'creator demoted'), 'the revocation is a security event');
});

t.test('demotion to member: a key bound to A2A senders loses the binding, which only owners and admins grant', async (t) => {
  const { s, op } = await operated();
  const x = await tenant(s, ADMIN);
  // a key is bound only to an id its organisation owns (issue 38): an agent it registered
  const writer = await createKey(s, x.token, { name: 'agents', scopes: ['agent:write'] });
  const billing = (await registerAgent(s, writer.key, { name: 'billing' })).agent_id;
  const bound = await createKey(s, x.token, { name: 'billing-key', a2a_senders: [billing] });
  t.same((await keyRecord(s, bound.id)).a2a_senders, [billing]);
  t.equal((await s.request('PATCH', `/admin/orgs/${x.orgId}`, { apiKey: op.key, body: { user_roles: { [x.user.id]: 'member' } } })).status, 200);
  const rec = await keyRecord(s, bound.id);
  t.equal(rec.a2a_senders, undefined, 'the binding is gone');
  t.same([rec.revoked_at, rec.scopes], [null, ['verify:read', 'attestation:read']], 'the key itself stays, with its scopes');
  const list = await s.request('GET', '/auth/api-keys', { headers: bearer(x.token) });
  t.equal(list.body.keys.find((k: { id: string }) => k.id === bound.id).a2a_senders, undefined, 'the listing shows no binding');
});

t.test('promotion: keys take the new role, scopes unchanged (a promotion never widens a key)', async (t) => {
  const { s, op } = await operated();
  const x = await tenant(s, ADMIN);
  const setRole = (role: string) => s.request('PATCH', `/admin/orgs/${x.orgId}`, { apiKey: op.key, body: { user_roles: { [x.user.id]: role } } });
  t.equal((await setRole('member')).status, 200);
  const mine = await createKey(s, x.token, { name: 'as-member' });
  t.equal((await setRole('admin')).status, 200);
  const list = await s.request('GET', '/auth/api-keys', { headers: bearer(x.token) });
  const scopes = Object.fromEntries(list.body.keys.map((k: { id: string; scopes: string[] }) => [k.id, k.scopes]));
  t.same(scopes[mine.id], ['verify:read', 'attestation:read'], 'the key made as a member keeps its scopes');
  t.same(scopes[x.keyId], ['verify:read', 'attestation:read'], 'admin:all taken by the demotion is not given back');
  t.equal((await s.request('GET', `/admin/security/threats/${x.orgId}`, { apiKey: x.key })).status, 403);
  t.equal((await keyRecord(s, mine.id)).role, 'admin');
  t.equal((await keyRecord(s, x.keyId)).role, 'admin');

  // owner → admin keeps every scope: admin:all is an admin's to hold
  const y = await tenant(s, ADMIN);
  t.equal((await s.request('PATCH', `/admin/orgs/${y.orgId}`, { apiKey: op.key, body: { user_roles: { [y.user.id]: 'admin' } } })).status, 200);
  t.same((await keyRecord(s, y.keyId)).scopes, ADMIN);
  t.equal((await keyRecord(s, y.keyId)).role, 'admin');
  t.equal((await s.request('GET', `/admin/security/threats/${y.orgId}`, { apiKey: y.key })).status, 200);
});

async function keyRecord(s: TestServer, id: string): Promise<ApiKeyRecord> {
  const digest = await s.kernel.app.store.collection<string>(KEY_COLLECTIONS.ids).get(id);
  return (await s.kernel.app.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest).get(digest!))!;
}
