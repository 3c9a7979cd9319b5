import t, { type Test } from 'tap';
import health from '../../plugins/health/index.js';
import ops from '../../plugins/ops/index.js';
import { createAuthPlugin, creatorChanged, KEY_COLLECTIONS, type Accounts, type ApiKeyRecord, type ApiKeys, type OrgAdmin } from '../../plugins/auth/index.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { bearer, createKey, tenant, verificationTestPlugin } from '../helpers/tenancy.js';

/**
 * POST /auth/api-keys and POST /admin/keys/rotate check the creator's role as the request began,
 * then write the key. A demotion landing in between lists the user's keys before the new one exists;
 * the writer re-reads the user after writing and answers as if the demotion had come first. Here the
 * demotion is run inside ApiKeys.create / successor, just before the write: the worst interleaving.
 */
async function server(t: Test): Promise<TestServer> {
  const s = await startServer({ plugins: [health, createAuthPlugin(), ops, verificationTestPlugin], config: { auth: { anonymous_rate_per_minute: 1000 } } });
  t.teardown(() => s.close());
  return s;
}

/** Runs `change` once, inside the next call of `method`, before the key is written. */
function beforeNextWrite(s: TestServer, method: 'create' | 'successor', change: () => Promise<unknown>): void {
  const keys = s.kernel.app.service('auth.keys')! as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const original = keys[method];
  keys[method] = async function (this: unknown, ...args: unknown[]) {
    keys[method] = original;
    await change();
    return original.apply(this, args);
  };
}

const demote = (s: TestServer, orgId: string, userId: string) => () => s.kernel.app.service('auth.orgs')!.setRole(orgId, userId, 'member');

async function activeKeys(s: TestServer, orgId: string): Promise<ApiKeyRecord[]> {
  return s.kernel.app.service('auth.keys')!.listActive(orgId);
}

t.test('creation: a demotion between the role check and the write leaves no privileged key', async (t) => {
  const s = await server(t);
  const x = await tenant(s, ['verify:read']);
  beforeNextWrite(s, 'create', demote(s, x.orgId, x.user.id));
  const r = await s.request('POST', '/auth/api-keys', { headers: bearer(x.token), body: { name: 'late', scopes: ['verify:read', 'admin:all'] } });
  t.equal(r.status, 403, 'refused as a member asking for admin:all is');
  t.equal(r.body.code, 'scope_not_allowed');
  t.notOk(r.body.key, 'no plaintext handed out');
  const active = await activeKeys(s, x.orgId);
  t.same(active.map((k) => k.id), [x.keyId], 'the key written before the re-check is revoked');
  t.notOk(active.some((k) => k.scopes.includes('admin:all')), 'no active admin:all key');

  const y = await tenant(s, ['verify:read']);
  beforeNextWrite(s, 'create', demote(s, y.orgId, y.user.id));
  const only = await s.request('POST', '/auth/api-keys', { headers: bearer(y.token), body: { name: 'late', scopes: ['admin:all'] } });
  t.equal(only.status, 403);
  t.same((await activeKeys(s, y.orgId)).map((k) => k.id), [y.keyId]);
});

t.test('creation: default scopes after a demotion give a key acting as a member', async (t) => {
  const s = await server(t);
  const x = await tenant(s, ['verify:read']);
  beforeNextWrite(s, 'create', demote(s, x.orgId, x.user.id));
  const k = await createKey(s, x.token, { name: 'plain' });
  t.same(k.scopes, ['verify:read', 'attestation:read']);
  const rec = (await activeKeys(s, x.orgId)).find((r) => r.id === k.id)!;
  t.equal(rec.role, 'member', 'not the owner role the request began with');
});

t.test('creation: a deletion between the check and the write leaves no key', async (t) => {
  const s = await server(t);
  const x = await tenant(s, ['verify:read']);
  const accounts = s.kernel.app.service('auth.accounts')!;
  const keys = s.kernel.app.service('auth.keys')!;
  beforeNextWrite(s, 'create', async () => {
    await accounts.deleteUser(x.user.id);
    await creatorChanged(keys, null, x.orgId, x.user.id, null);
  });
  const r = await s.request('POST', '/auth/api-keys', { headers: bearer(x.token), body: { name: 'late', scopes: ['verify:read', 'admin:all'] } });
  t.equal(r.status, 401, 'as the token of a deleted user is');
  t.equal(r.body.code, 'invalid_token');
  t.same(await activeKeys(s, x.orgId), [], 'no key of the deleted user is active');
});

t.test('rotation: the successor of a key whose creator was just demoted is downgraded', async (t) => {
  const s = await server(t);
  const x = await tenant(s, ['verify:read', 'admin:all']);
  beforeNextWrite(s, 'successor', demote(s, x.orgId, x.user.id));
  const r = await s.request('POST', '/admin/keys/rotate', { apiKey: x.key, body: { key_id: x.keyId } });
  t.equal(r.status, 201, r.text);
  t.same(r.body.scopes, ['verify:read'], 'the copy lost admin:all as its original did');
  const active = await activeKeys(s, x.orgId);
  t.same(active.map((k) => [k.id, k.scopes, k.role]), [[r.body.id, ['verify:read'], 'member']]);
  t.equal((await s.request('GET', `/admin/security/threats/${x.orgId}`, { apiKey: r.body.key })).status, 403);
});

t.test("rotation: a caller demoted mid-request cannot take another key's new plaintext", async (t) => {
  const s = await server(t);
  const x = await tenant(s, ['verify:read', 'admin:all']);
  const other = await createKey(s, x.token, { name: 'other', scopes: ['verify:read'] });
  beforeNextWrite(s, 'successor', demote(s, x.orgId, x.user.id));
  const r = await s.request('POST', '/admin/keys/rotate', { apiKey: x.key, body: { key_id: other.id } });
  t.equal(r.status, 403, 'as a key without admin:all is');
  t.equal(r.body.code, 'insufficient_scope');
  t.notOk(r.body.key);
  const active = await activeKeys(s, x.orgId);
  t.same(active.map((k) => k.id).sort(), [x.keyId, other.id].sort(), 'the rotation did not happen: no successor, the target kept');
  t.equal((await s.request('POST', '/test/verify', { apiKey: other.key, body: {} })).status, 200);
  const all = await s.kernel.app.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest).list();
  t.notOk(all.some((e) => e.value.revoked_at === null && e.value.scopes.includes('admin:all')), 'no active admin:all key at all');
});
