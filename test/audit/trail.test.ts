import t, { type Test } from 'tap';
import { builtinsWithoutEngines, startServer, TEST_SECRETS, type TestServer } from '../helpers/server.js';
import { attestableRoutes } from '../helpers/attestation/harness.js';
import { HttpError } from '../../core/errors.js';
import type { Plugin } from '../../core/types.js';
import { AuthProblems } from '../../plugins/auth/errors.js';
import { auditCollection } from '../../plugins/audit/store-read.js';
import { walkChains } from '../../plugins/audit/verify.js';
import { bearer, createKey, signup, verificationTestPlugin } from '../helpers/tenancy.js';

/**
 * Revocation needs authority and leaves a trace (issue 12, item 10): revoking an attestation needs
 * admin:all; key creation/deletion/rotation, agent register/delete, attestation revocations and
 * verification requests refused after authentication are entries of the organisation's chain.
 */
const refusing: Plugin = {
  name: 'test-refusing',
  register(app) {
    app.route({
      method: 'POST',
      path: '/test/refuse',
      auth: 'apiKey',
      scope: 'verify:read',
      verification: { attest: false },
      handler(ctx) {
        const b = ctx.body as { kind?: string };
        if (b.kind === 'crash') throw new Error('internal detail');
        throw new HttpError(AuthProblems.insufficientScope, 'refused by policy', { constraintId: 'test.policy' });
      },
    });
  },
};

/** Stands in for the rate limiter: a gate registered before the audit plugin's own. */
const limiter: Plugin = {
  name: 'test-limiter',
  register(app) {
    app.phase('gate', (ctx) => {
      if (ctx.headers['x-test-limit']) throw new HttpError(AuthProblems.rateLimited, 'slow down', { headers: { 'retry-after': '1' } });
    });
  },
};
// no engine: every verification here goes through the test routes
const auditAt = builtinsWithoutEngines.findIndex((p) => p.name === 'audit');

const s: TestServer = await startServer({
  plugins: [...builtinsWithoutEngines.slice(0, auditAt), limiter, ...builtinsWithoutEngines.slice(auditAt), verificationTestPlugin, attestableRoutes, refusing],
  config: { auth: { anonymous_rate_per_minute: 1000 } },
});
t.teardown(() => s.close());

interface Entry {
  log_id: string;
  status: string;
  engine: string;
  key_id: string | null;
  user_id: string | null;
  http_status: number;
  constraint_id: string | null;
  route: string;
}

async function entries(token: string): Promise<Entry[]> {
  const r = await s.request('GET', '/audit/logs?limit=200', { headers: bearer(token) });
  if (r.status !== 200) throw new Error(`audit logs: ${r.status} ${r.text}`);
  return r.body.logs as Entry[];
}

async function chainIntact(t: Test, orgId: string) {
  const walk = await walkChains(auditCollection(s.kernel.app.store), TEST_SECRETS.audit_secret_key, { orgId });
  t.equal(walk.broken, null, 'the chain verifies');
  return walk.entries;
}

t.test('API key creation, deletion and rotation are chain entries naming the key', async (t) => {
  const a = await signup(s);
  const admin = await createKey(s, a.token, { name: 'admin', scopes: ['verify:read', 'admin:all'] });
  const other = await createKey(s, a.token, { name: 'other', scopes: ['verify:read'] });
  const del = await s.request('DELETE', `/auth/api-keys/${other.id}`, { headers: bearer(a.token) });
  t.equal(del.status, 200);
  const rot = await s.request('POST', '/admin/keys/rotate', { apiKey: admin.key, body: { key_id: admin.id } });
  t.equal(rot.status, 201);
  const admins = (await entries(a.token)).filter((e) => e.status === 'admin').reverse();
  t.same(
    admins.map((e) => [e.engine, e.constraint_id]),
    [
      ['api_key.create', `api_key:${admin.id}`],
      ['api_key.create', `api_key:${other.id}`],
      ['api_key.revoke', `api_key:${other.id}`],
      ['api_key.rotate', `api_key:${admin.id}`],
    ],
  );
  t.equal(admins[0].user_id, a.user.id, 'creation by a user session names the user');
  t.equal(admins[3].key_id, admin.id, 'rotation names the key that did it');
  await chainIntact(t, a.user.org_id);
});

t.test('agent registration and deletion are chain entries', async (t) => {
  const a = await signup(s);
  const k = await createKey(s, a.token, { name: 'agents', scopes: ['verify:read', 'agent:write'] });
  const reg = await s.request('POST', '/agents/register', { apiKey: k.key, body: { name: 'bot' } });
  t.equal(reg.status, 201);
  t.ok(reg.headers.get('x-audit-log-id'));
  const b = await signup(s);
  const stranger = await createKey(s, b.token, { name: 'x', scopes: ['verify:read', 'agent:write'] });
  t.equal((await s.request('DELETE', `/agents/${reg.body.agent_id}`, { apiKey: stranger.key })).status, 404, "another organisation's agent");
  t.equal((await s.request('DELETE', `/agents/${reg.body.agent_id}`, { headers: { 'x-agent-token': reg.body.agent_token } })).status, 401, 'not with its own agent token');
  t.equal((await s.request('DELETE', `/agents/${reg.body.agent_id}`, { apiKey: k.key })).status, 200);
  const agentEntries = (await entries(a.token)).filter((e) => e.engine?.startsWith('agent.')).reverse();
  t.same(
    agentEntries.map((e) => [e.engine, e.constraint_id, e.key_id]),
    [
      ['agent.register', `agent:${reg.body.agent_id}`, k.id],
      ['agent.delete', `agent:${reg.body.agent_id}`, k.id],
    ],
  );
  t.notOk((await entries(b.token)).some((e) => e.engine?.startsWith('agent.')), "the stranger's failed delete is not in either chain as an agent change");
  await chainIntact(t, a.user.org_id);
});

t.test('revoking an attestation needs admin:all and is a chain entry', async (t) => {
  const a = await signup(s);
  const plain = await createKey(s, a.token, { name: 'default' });
  const admin = await createKey(s, a.token, { name: 'admin', scopes: ['verify:read', 'attestation:read', 'admin:all'] });
  const issued = await s.request('POST', '/test/attestable', { apiKey: plain.key, body: { expression: '1+1=2' } });
  t.equal(issued.status, 200);
  const id = issued.body.attestation_id as string;
  t.type(id, 'string');

  const denied = await s.request('POST', `/attestation/${id}/revoke`, { apiKey: plain.key });
  t.equal(denied.status, 403, "a default-scope key of the organisation's owner cannot revoke");
  t.match(denied.headers.get('content-type'), /problem\+json/);
  t.equal((await s.request('GET', `/attestation/${id}`, { apiKey: plain.key })).body.status, 'VALID');

  const b = await signup(s);
  const bAdmin = await createKey(s, b.token, { name: 'admin', scopes: ['verify:read', 'attestation:read', 'admin:all'] });
  t.equal((await s.request('POST', `/attestation/${id}/revoke`, { apiKey: bAdmin.key })).status, 404, "admin:all of another organisation: 404");
  t.equal((await s.request('POST', `/attestation/${id}/revoke`, { headers: { 'x-agent-token': 'svc_agent_' + 'x'.repeat(43) } })).status, 401, 'agent token');

  const ok = await s.request('POST', `/attestation/${id}/revoke`, { apiKey: admin.key });
  t.equal(ok.status, 200);
  t.equal(ok.body.status, 'REVOKED');
  t.equal((await s.request('POST', `/attestation/${id}/revoke`, { apiKey: admin.key })).status, 200, 'idempotent');
  const revs = (await entries(a.token)).filter((e) => e.engine === 'attestation.revoke');
  t.equal(revs.length, 1, 'one entry: the repeat changed nothing');
  t.equal(revs[0].constraint_id, `attestation:${id}`);
  t.equal(revs[0].key_id, admin.id);
  t.equal((await entries(b.token)).filter((e) => e.engine === 'attestation.revoke').length, 0);
});

t.test('verification requests refused after authentication are chain entries, a missing scope and a 429 included; before authentication they are not', async (t) => {
  const a = await signup(s);
  const k = await createKey(s, a.token, { name: 'reader', scopes: ['verify:read'] });
  const wrongScope = await createKey(s, a.token, { name: 'att', scopes: ['attestation:read'] });
  const count = async () => (await entries(a.token)).filter((e) => e.status === 'refused').length;

  const bad = await s.request('POST', '/test/verify', { apiKey: k.key, raw: '{"outcome":', headers: { 'content-type': 'application/json' } });
  t.equal(bad.status, 400);
  const badId = bad.headers.get('x-audit-log-id');
  t.match(badId, /^lg_\d{12}_/, 'the refusal names its entry');

  const policy = await s.request('POST', '/test/refuse', { apiKey: k.key, body: {} });
  t.equal(policy.status, 403);
  t.equal(policy.body.constraint_id, 'test.policy');

  const crash = await s.request('POST', '/test/refuse', { apiKey: k.key, body: { kind: 'crash' } });
  t.equal(crash.status, 500);

  const list = (await entries(a.token)).filter((e) => e.status === 'refused').reverse();
  t.same(
    list.map((e) => [e.route, e.http_status, e.constraint_id, e.key_id]),
    [
      ['/test/verify', 400, 'invalid_json', k.id],
      ['/test/refuse', 403, 'test.policy', k.id],
      ['/test/refuse', 500, 'internal_error', k.id],
    ],
  );
  t.equal(list[0].log_id, badId);
  t.equal(list[0].engine, 'verify');

  // entries too: refusals after authentication before the handler ran (a missing scope, a 429)
  const scope = await s.request('POST', '/test/verify', { apiKey: wrongScope.key, body: { outcome: 'verified' } });
  t.equal(scope.status, 403, 'a key without verify:read');
  t.match(scope.headers.get('x-audit-log-id'), /^lg_/, 'the scope refusal is an entry');
  const limited = await s.request('POST', '/test/verify', { apiKey: k.key, body: { outcome: 'verified' }, headers: { 'x-test-limit': '1' } });
  t.equal(limited.status, 429);
  t.match(limited.headers.get('x-audit-log-id'), /^lg_/, 'the 429 is an entry');
  const traced = (await entries(a.token)).filter((e) => e.status === 'refused').slice(0, 2).reverse();
  t.same(
    traced.map((e) => [e.http_status, e.constraint_id, e.key_id]),
    [
      [403, 'insufficient_scope', wrongScope.id],
      [429, 'rate_limited', k.id],
    ],
  );

  // not entries: no credential, an unknown or revoked key (no organisation is known)
  const before = await count();
  t.equal((await s.request('POST', '/test/verify', { body: { outcome: 'verified' } })).status, 401);
  t.equal((await s.request('POST', '/test/verify', { apiKey: 'svc_live_' + 'A'.repeat(43), body: {} })).status, 401);
  t.equal((await s.request('DELETE', `/auth/api-keys/${wrongScope.id}`, { headers: bearer(a.token) })).status, 200);
  const revoked = await s.request('POST', '/test/verify', { apiKey: wrongScope.key, body: {} });
  t.equal(revoked.status, 401);
  t.equal(revoked.headers.get('x-audit-log-id'), null);
  t.equal(await count(), before, 'none of these is a chain entry');

  const filtered = await s.request('GET', '/logs?status=refused', { apiKey: k.key });
  t.equal(filtered.status, 200, 'refused is a status filter of GET /logs');
  t.equal(filtered.body.logs.length, 5);
  t.equal((await s.request('GET', '/audit/export?status=refused', { headers: bearer(a.token) })).status, 200);
  await chainIntact(t, a.user.org_id);
});
