import t from 'tap';
import { decodeJwt, SignJWT } from 'jose';
import { loadServiceConfig } from '../../sidecar/config.js';
import { hmacSha256Hex } from '../../core/json/canonical.js';
import { startServer, TEST_SECRETS, builtinsWithoutEngines } from '../helpers/server.js';
import { grantableScopes } from '../../plugins/auth/routes.js';
import { KEY_COLLECTIONS, type ApiKeyRecord } from '../../plugins/auth/keys.js';
import { JWT_ISSUER } from '../../plugins/auth/jwt.js';
import { bearer, createKey, signup, uniq, verificationTestPlugin } from '../helpers/tenancy.js';

const plugins = [...builtinsWithoutEngines, verificationTestPlugin];
// generous anonymous limit: this file signs up many accounts from one address
const config = { auth: { anonymous_rate_per_minute: 1000 } };

t.test('sign-up → JWT → API key → verification route → audit entry', async (t) => {
  const s = await startServer({ plugins, config });
  t.teardown(() => s.close());
  const email = `${uniq('flow')}@Example.com`;
  const r = await s.request('POST', '/auth/signup', { body: { email, password: 'hunter22hunter22', organization_name: uniq('Acme ') } });
  t.equal(r.status, 201);
  t.equal(r.body.token_type, 'bearer');
  t.equal(r.body.user.role, 'owner');
  t.equal(r.body.user.email, email.toLowerCase());
  const claims = decodeJwt(r.body.access_token);
  t.equal(claims.sub, r.body.user.id);
  t.equal(claims.org_id, r.body.user.org_id);
  t.equal(claims.role, 'owner');
  t.equal(claims.iss, JWT_ISSUER);
  t.ok(claims.jti);
  t.equal((claims.exp as number) - (claims.iat as number), 3600);

  const me = await s.request('GET', '/auth/me', { headers: bearer(r.body.access_token) });
  t.equal(me.status, 200);
  t.equal(me.body.organization.tier, 'free');

  const key = await createKey(s, r.body.access_token, { name: 'ci' });
  t.match(key.key, /^svc_live_[A-Za-z0-9_-]{43}$/);
  t.same(key.scopes, ['verify:read', 'attestation:read']);

  const v = await s.request('POST', '/test/verify', { apiKey: key.key, body: { outcome: 'verified' } });
  t.equal(v.status, 200);
  t.equal(v.body.status, 'VERIFIED');
  t.match(v.headers.get('x-audit-log-id'), /^lg_000000000001_/, 'after the entry of the key creation');
  t.ok(v.headers.get('ratelimit-limit'), 'RateLimit headers on success');

  const logs = await s.request('GET', '/logs', { apiKey: key.key });
  t.equal(logs.status, 200);
  t.equal(logs.body.logs.length, 2);
  t.equal(logs.body.logs[0].status, 'verified');
  t.equal(logs.body.logs[0].key_id, key.id);
  t.equal(logs.body.logs[1].engine, 'api_key.create');

  const signin = await s.request('POST', '/auth/signin', { body: { email, password: 'hunter22hunter22' } });
  t.equal(signin.status, 200);
  t.equal(signin.body.user.id, r.body.user.id);
});

t.test('sign-in failures are uniform; sign-up conflicts do not say what exists', async (t) => {
  const s = await startServer({ plugins, config });
  t.teardown(() => s.close());
  const org = uniq('Org ');
  const { user } = await signup(s, { org, password: 'right password!' });
  const wrong = await s.request('POST', '/auth/signin', { body: { email: user.email, password: 'wrong password!' } });
  const unknown = await s.request('POST', '/auth/signin', { body: { email: `${uniq('nobody')}@example.com`, password: 'wrong password!' } });
  t.equal(wrong.status, 401);
  t.equal(unknown.status, 401);
  t.equal(wrong.body.detail, unknown.body.detail);

  const dupEmail = await s.request('POST', '/auth/signup', { body: { email: user.email, password: 'another password', organization_name: uniq('Other ') } });
  const freshEmail = `${uniq('x')}@example.com`;
  const dupOrg = await s.request('POST', '/auth/signup', { body: { email: freshEmail, password: 'another password', organization_name: org.toUpperCase() } });
  t.equal(dupEmail.status, 409);
  t.equal(dupOrg.status, 409);
  t.equal(dupEmail.body.detail, dupOrg.body.detail);
  // the email claimed by the failed org-name sign-up was released again
  const retry = await s.request('POST', '/auth/signup', { body: { email: freshEmail, password: 'another password', organization_name: uniq('Free ') } });
  t.equal(retry.status, 201);
  const bad = await s.request('POST', '/auth/signup', { body: { email: 'not-an-email', password: 'another password', organization_name: 'x' } });
  t.equal(bad.status, 400);
});

t.test('API keys: stored as digests, listed without secrets, revoked at once, scoped to the org', async (t) => {
  const s = await startServer({ plugins, config });
  t.teardown(() => s.close());
  const a = await signup(s);
  const b = await signup(s);
  const k = await createKey(s, a.token, { name: 'one', test: true });
  t.match(k.key, /^svc_test_/);
  const store = s.kernel.app.store;
  const digest = hmacSha256Hex(TEST_SECRETS.api_key_lookup_secret, k.key);
  const rec = await store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest).get(digest);
  t.equal(rec?.id, k.id, 'record found under the HMAC digest');
  t.notOk(JSON.stringify(rec).includes(k.key), 'plaintext never stored');

  const list = await s.request('GET', '/auth/api-keys', { headers: bearer(a.token) });
  t.equal(list.status, 200);
  t.equal(list.body.keys.length, 1);
  t.notOk(list.text.includes(k.key) || list.text.includes(digest), 'no plaintext or digest listed');
  const listB = await s.request('GET', '/auth/api-keys', { headers: bearer(b.token) });
  t.equal(listB.body.keys.length, 0, 'other org sees none');

  t.equal((await s.request('GET', '/logs', { apiKey: k.key })).status, 200);
  t.equal((await s.request('DELETE', `/auth/api-keys/${k.id}`, { headers: bearer(b.token) })).status, 404, 'other org cannot revoke');
  const del = await s.request('DELETE', `/auth/api-keys/${k.id}`, { headers: bearer(a.token) });
  t.equal(del.status, 200);
  t.equal(del.body.revoked, true);
  t.equal((await s.request('GET', '/logs', { apiKey: k.key })).status, 401, 'revoked key refused immediately');
  t.equal((await s.request('GET', '/auth/api-keys', { headers: bearer(a.token) })).body.keys.length, 0);
  t.equal((await s.request('DELETE', `/auth/api-keys/${k.id}`, { headers: bearer(a.token) })).status, 404, 'already revoked');
});

t.test('pre-v7.2 keys and malformed credentials get 401', async (t) => {
  const s = await startServer({ plugins, config });
  t.teardown(() => s.close());
  const a = await signup(s);
  const legacyKey = 'svc_live_' + 'A'.repeat(43);
  const digest = hmacSha256Hex(TEST_SECRETS.api_key_lookup_secret, legacyKey);
  const old: ApiKeyRecord = {
    id: 'key_legacy',
    org_id: a.user.org_id,
    user_id: a.user.id,
    role: 'owner',
    name: 'old',
    scopes: ['verify:read'],
    prefix: 'svc_live_',
    digest,
    created_at: '2024-01-01T00:00:00.000Z',
    revoked_at: null,
  };
  await s.kernel.app.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest).put(digest, old);
  const r = await s.request('GET', '/logs', { apiKey: legacyKey });
  t.equal(r.status, 401);
  t.equal(r.body.code, 'legacy_api_key');
  t.equal((await s.request('GET', '/logs', { apiKey: 'svc_0123456789abcdef' })).body.code, 'legacy_api_key', 'old key format');
  t.equal((await s.request('GET', '/logs', { apiKey: 'svc_live_' + 'B'.repeat(43) })).status, 401, 'unknown key');
  t.equal((await s.request('GET', '/logs')).status, 401, 'no key');

  t.equal((await s.request('GET', '/auth/me', { headers: bearer('nonsense') })).status, 401);
  const secret = new TextEncoder().encode(TEST_SECRETS.jwt_secret_key);
  const expired = await new SignJWT({ org_id: a.user.org_id, role: 'owner' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(a.user.id)
    .setIssuer(JWT_ISSUER)
    .setJti('x')
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
    .sign(secret);
  t.equal((await s.request('GET', '/auth/me', { headers: bearer(expired) })).status, 401, 'expired JWT');
  const forged = await new SignJWT({ org_id: a.user.org_id, role: 'owner' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(a.user.id)
    .setIssuer(JWT_ISSUER)
    .setJti('x')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('some-other-secret-0123456789'));
  t.equal((await s.request('GET', '/auth/me', { headers: bearer(forged) })).status, 401, 'wrong secret');
  const unsigned = a.token.split('.').slice(0, 2).join('.') + '.';
  t.equal((await s.request('GET', '/auth/me', { headers: bearer(unsigned) })).status, 401, 'stripped signature');
});

t.test('privileged scopes only for owners and admins', async (t) => {
  t.same(grantableScopes(undefined, 'member'), ['verify:read', 'attestation:read']);
  t.same(grantableScopes(['admin:all'], 'admin'), ['admin:all']);
  t.same(grantableScopes(['agent:write'], 'owner'), ['agent:write']);
  t.throws(() => grantableScopes(['admin:all'], 'member'), /only an owner or admin/);
  t.throws(() => grantableScopes(['verify:read', 'agent:write'], 'member'), /agent:write/);
  const s = await startServer({ plugins, config });
  t.teardown(() => s.close());
  const a = await signup(s);
  const k = await createKey(s, a.token, { name: 'adm', scopes: ['admin:all', 'agent:write'] });
  t.same(k.scopes, ['admin:all', 'agent:write']);
  const bad = await s.request('POST', '/auth/api-keys', { body: { name: 'x', scopes: ['root'] }, headers: bearer(a.token) });
  t.equal(bad.status, 400);
});

t.test('start-up refuses a missing lookup secret or one equal to the JWT secret', async (t) => {
  const base = { log_level: 'SILENT' as const, secrets: { ...TEST_SECRETS } };
  t.ok(loadServiceConfig({ env: {}, file: null, overrides: base }));
  t.throws(() => loadServiceConfig({ env: {}, file: null, overrides: { ...base, secrets: { ...TEST_SECRETS, api_key_lookup_secret: null } } }), /SVC_API_KEY_LOOKUP_SECRET\): required/);
  t.throws(
    () => loadServiceConfig({ env: {}, file: null, overrides: { ...base, secrets: { ...TEST_SECRETS, api_key_lookup_secret: TEST_SECRETS.jwt_secret_key } } }),
    /must differ/,
  );
  t.throws(() => loadServiceConfig({ env: { SVC_API_KEY_LOOKUP_SECRET: TEST_SECRETS.jwt_secret_key, SVC_JWT_SECRET_KEY: TEST_SECRETS.jwt_secret_key }, file: null }), /must differ/);
});
