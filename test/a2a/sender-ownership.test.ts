import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import { createAuthPlugin, hashPassword, KEY_COLLECTIONS, type ApiKeyRecord } from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import { createProvisioning } from '../../sidecar/provision/plugin.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { bearer, createKey, registerAgent, signup } from '../helpers/tenancy.js';
import { decodeJwt, invoice, KEY_PEM, message } from '../helpers/a2a.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startPeer } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';

/**
 * Issue 38 item 2: a sender id is bound to a key only by the organisation that owns it — an agent
 * registered in it, or a trust entry the operator assigned to it (`org_id`) — and a binding is
 * checked again at every use, so one whose id stops being owned authenticates nobody. Organisation
 * A is declared by a bootstrap file (its agent `agent-a`, allowlisted, and its keys), as an
 * operator would; the attacker signs up over HTTP.
 */
const dir = tempDir(t, 'sender-ownership-');
const PASSWORD = 'correct horse battery';
const A_KEY = 'svc_live_' + 'A'.repeat(43);
const A_WRITER = 'svc_live_' + 'W'.repeat(43);
const A_AGENT_TOKEN = 'svc_agent_' + 'T'.repeat(43);
const env = { A_KEY, A_WRITER, A_AGENT_TOKEN };

function bootstrap(name: string, doc: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, stringify(doc));
  return p;
}

/** `assign`: the trust entry giving ledger-bot to org_a (org_id, which this fix adds to trust entries) */
async function orgA(o: { keySenders?: string[]; extraTrust?: unknown[]; assign?: boolean } = {}) {
  return {
    organizations: [
      {
        id: 'org_a',
        name: 'organisation a',
        users: [{ id: 'usr_a', email: 'owner@a.example', role: 'owner', password_hash: await hashPassword(PASSWORD) }],
        api_keys: [
          { id: 'key_a_runtime', name: 'runtime', key_env: 'A_KEY', scopes: ['verify:read'], a2a_senders: o.keySenders ?? ['agent-a'] },
          { id: 'key_a_writer', name: 'agents', key_env: 'A_WRITER', scopes: ['verify:read', 'agent:write'] },
        ],
        agents: [{ agent_id: 'agent-a', name: 'agent a', token_env: 'A_AGENT_TOKEN' }],
      },
    ],
    a2a_trust: [{ agent_id: 'agent-a' }, ...(o.assign ? [{ agent_id: 'ledger-bot', org_id: 'org_a' }] : []), ...(o.extraTrust ?? [])],
  };
}

function start(file: string, a2aOver: Record<string, unknown> = {}): Promise<TestServer> {
  const prov = createProvisioning({ env });
  return startServer({
    plugins: [prov.config, health, createAuthPlugin(), agents, a2a, prov.data],
    config: {
      bootstrap_file: file,
      auth: { anonymous_rate_per_minute: 1000 },
      // deny by default: agent-a and ledger-bot pass only because they are allowlisted
      a2a: { deployment_id: 'ownership', signing_key_pem: KEY_PEM, default_allow: false, trusted_agents: 'receiver-b', ...a2aOver },
    } as ConfigOverrides,
  });
}

const fin = (sender: string) => message({ sender_agent_id: sender, payload_type: 'financial_transaction', payload: invoice([{ amount: '2.50', quantity: 2 }], '5.00') });
const intercept = (s: TestServer, sender: string, apiKey: string) => s.request('POST', '/a2a/intercept', { body: fin(sender), apiKey });
const senderAuth = (r: { body: any }) => decodeJwt(r.body.attestation_jwt).claims.svc_a2a.sender_auth;

const s = await start(bootstrap('a.yaml', await orgA()));
t.teardown(() => s.close());

t.test("the quoted attack: a tenant binds another organisation's registered, allowlisted agent", async (t) => {
  t.equal((await intercept(s, 'agent-a', A_KEY)).body.status, 'forwarded', "organisation A's own bound key speaks as agent-a");
  const x = await signup(s);
  const r = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['agent-a'] }, headers: bearer(x.token) });
  t.equal(r.status, 403, 'the binding is refused');
  t.match(r.headers.get('content-type'), /^application\/problem\+json/);
  t.equal(r.body.code, 'a2a_sender_not_owned');
  t.equal(r.body.type, 'urn:proofgate:problem:a2a_sender_not_owned');
  t.match(r.body.detail, /"agent-a"/);
  t.notMatch(r.text, /org_a/, 'who owns the id is not revealed');
  t.notOk(r.body.key, 'no key handed out');
  const listed = await s.request('GET', '/auth/api-keys', { headers: bearer(x.token) });
  t.same(listed.body.keys, [], 'nothing was written');

  const plain = await createKey(s, x.token, { name: 'plain' });
  const v = await intercept(s, 'agent-a', plain.key);
  t.equal(v.body.status, 'blocked', 'an unbound key cannot speak as agent-a either');
  t.equal(v.body.details.failure, 'no_credential');
});

t.test('a binding written before this fix (or by any path that skipped the check) fails at use', async (t) => {
  const x = await signup(s);
  const k = await createKey(s, x.token, { name: 'legacy' });
  const records = s.kernel.app.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest);
  const digest = (await s.kernel.app.store.collection<string>(KEY_COLLECTIONS.ids).get(k.id))!;
  await records.update(digest, (cur) => ({ ...cur!, a2a_senders: ['agent-a'] }));
  const v = await intercept(s, 'agent-a', k.key);
  t.equal(v.status, 200);
  t.equal(v.body.status, 'blocked', 'the stale binding does not speak');
  t.same([v.body.details.constraint_id, v.body.details.failure], ['a2a.sender_not_authenticated', 'binding_not_owned']);
  t.equal(senderAuth(v), 'none', 'the signed verdict does not claim api_key');

  const rotated = await s.request('POST', '/admin/keys/rotate', { apiKey: k.key, body: { key_id: k.id } });
  t.equal(rotated.status, 201);
  t.equal((await intercept(s, 'agent-a', rotated.body.key)).body.details.failure, 'binding_not_owned', "rotation does not launder it");
});

t.test('an id assigned by a trust entry (org_id) is bound by its organisation only', async (t) => {
  const s = await start(bootstrap('assign.yaml', await orgA({ assign: true })));
  t.teardown(() => s.close());
  const signin = await s.request('POST', '/auth/signin', { body: { email: 'owner@a.example', password: PASSWORD } });
  t.equal(signin.status, 200);
  const mine = await createKey(s, signin.body.access_token, { name: 'ledger', a2a_senders: ['ledger-bot', 'agent-a'] });
  const v = await intercept(s, 'ledger-bot', mine.key);
  t.equal(v.body.status, 'forwarded');
  t.equal(senderAuth(v), 'api_key');

  const x = await signup(s);
  const r = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['ledger-bot'] }, headers: bearer(x.token) });
  t.equal(r.status, 403, "another organisation's assigned id");
  const unowned = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['receiver-b'] }, headers: bearer(signin.body.access_token) });
  t.equal(unowned.status, 403, 'an allowlisted id assigned to nobody is nobody’s to bind');
  t.equal(unowned.body.code, 'a2a_sender_not_owned');
  const alias = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['Agent-A', 'agent-a '] }, headers: bearer(signin.body.access_token) });
  t.equal(alias.status, 403, 'ids are exact: a case or space variant is another, unowned id');
  const mixed = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['agent-a', 'ledger-bot', 'nobody'] }, headers: bearer(signin.body.access_token) });
  t.equal(mixed.status, 403, 'one id not owned refuses the whole key');
  t.match(mixed.body.detail, /"nobody"/);
  t.notMatch(mixed.body.detail, /"agent-a"|"ledger-bot"/, 'the detail names only the ids not owned');
});

t.test("an agent another tenant registered over HTTP is that tenant's alone", async (t) => {
  const b = await signup(s);
  const bWriter = await createKey(s, b.token, { name: 'w', scopes: ['verify:read', 'agent:write'] });
  const agent = await registerAgent(s, bWriter.key, { name: 'b agent' });
  const x = await signup(s);
  const r = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: [agent.agent_id] }, headers: bearer(x.token) });
  t.equal(r.status, 403);
  const own = await s.request('POST', '/auth/api-keys', { body: { name: 'b', a2a_senders: [agent.agent_id] }, headers: bearer(b.token) });
  t.equal(own.status, 201, 'its own organisation binds it');
});

t.test('ownership that changes after the binding: the agent deleted, the binding stops speaking', async (t) => {
  const writer = await registerAgent(s, A_WRITER, { name: 'temp' });
  const signin = await s.request('POST', '/auth/signin', { body: { email: 'owner@a.example', password: PASSWORD } });
  const bound = await createKey(s, signin.body.access_token, { name: 'temp', a2a_senders: [writer.agent_id] });
  // default_allow is false: an HTTP agent is not allowlisted, so the sender step is what is read here
  const before = await intercept(s, writer.agent_id, bound.key);
  t.equal(senderAuth(before), 'api_key', 'bound and owned');
  t.equal((await s.request('DELETE', `/agents/${writer.agent_id}`, { apiKey: A_WRITER })).status, 200);
  const after = await intercept(s, writer.agent_id, bound.key);
  t.equal(after.body.status, 'blocked');
  t.equal(after.body.details.failure, 'binding_not_owned', "the deleted agent's binding fails closed");

  // the bootstrap-declared agent too: deleted, its key no longer speaks as it
  t.equal((await s.request('DELETE', '/agents/agent-a', { apiKey: A_WRITER })).status, 200);
  const v = await intercept(s, 'agent-a', A_KEY);
  t.equal(v.body.details.failure, 'binding_not_owned');
});

t.test('start-up: a bootstrap key bound to an id its organisation does not own stops the server', async (t) => {
  await t.rejects(start(bootstrap('foreign.yaml', await orgA({ keySenders: ['agent-b'], extraTrust: [{ agent_id: 'agent-b', org_id: 'org_b' }] }))), /api_keys\[key_a_runtime\]: a2a_senders "agent-b" not owned/);
  await t.rejects(start(bootstrap('nobody.yaml', await orgA({ keySenders: ['receiver-b'] }))), /a2a_senders "receiver-b" not owned/);
  await t.rejects(start(bootstrap('twice.yaml', await orgA({ assign: true, extraTrust: [{ agent_id: 'ledger-bot', org_id: 'org_b' }] }))), /"ledger-bot" is assigned to two organisations/);
  const ok = await start(bootstrap('assigned.yaml', await orgA({ assign: true, keySenders: ['agent-a', 'ledger-bot'] })));
  t.teardown(() => ok.close());
  t.equal(senderAuth(await intercept(ok, 'ledger-bot', A_KEY)), 'api_key', 'an id its trust entry assigns to the organisation');
});

t.test("claim-only mode (sender_auth off) does not report a binding the organisation does not own", async (t) => {
  const off = await start(bootstrap('off.yaml', await orgA()), { sender_auth: 'off' });
  t.teardown(() => off.close());
  const x = await signup(off);
  const k = await createKey(off, x.token, { name: 'legacy' });
  const digest = (await off.kernel.app.store.collection<string>(KEY_COLLECTIONS.ids).get(k.id))!;
  await off.kernel.app.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest).update(digest, (cur) => ({ ...cur!, a2a_senders: ['agent-a'] }));
  t.equal(senderAuth(await intercept(off, 'agent-a', k.key)), 'none');
  t.equal(senderAuth(await intercept(off, 'agent-a', A_KEY)), 'api_key', 'the owner’s binding is reported');
});

t.test("the proxy does not deliver a message in another organisation's agent's name", async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const p = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` } }, undefined, 'ownership-proxy');
  t.teardown(() => p.close());
  const victim = await agentToken(p);
  const send = (apiKey: string) =>
    p.request('POST', '/a2a/peers/ledger', {
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] } }] } } },
      headers: { 'x-api-key': apiKey, 'a2a-version': '1.0' },
    });

  const x = await signup(p);
  const refused = await p.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: [victim.agentId] }, headers: bearer(x.token) });
  t.equal(refused.status, 403, 'the binding is refused');
  // as an attacker who had bound it before this fix: the key's one binding names the sender
  const k = await createKey(p, x.token, { name: 'legacy' });
  const digest = (await p.kernel.app.store.collection<string>(KEY_COLLECTIONS.ids).get(k.id))!;
  await p.kernel.app.store.collection<ApiKeyRecord>(KEY_COLLECTIONS.byDigest).update(digest, (cur) => ({ ...cur!, a2a_senders: [victim.agentId] }));
  const before = peer.messages.length;
  const r = await send(k.key);
  t.equal(r.body.error?.code, -32050, 'blocked by sender authentication');
  t.equal(peer.messages.length, before, 'nothing reached the peer');

  // control: the victim's own organisation binds its agent and the proxy delivers
  const own = await p.request('POST', '/auth/api-keys', { body: { name: 'own', a2a_senders: [victim.agentId] }, headers: bearer(victim.jwt) });
  t.equal(own.status, 201);
  const ok = await send(own.body.key);
  t.notOk(ok.body.error, 'delivered');
  t.equal(peer.messages.length, before + 1);
});
