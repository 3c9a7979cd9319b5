import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import t from 'tap';
import { CompactSign } from 'jose';
import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import auth from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import { loadServiceConfig } from '../../sidecar/config.js';
import { startServer, TEST_SECRETS, type TestServer } from '../helpers/server.js';
import { bearer, createKey, registerAgent, signup } from '../helpers/tenancy.js';
import { decodeJwt, invoice, KEY_PEM, message, verifyWithJwk } from '../helpers/a2a.js';
import { settingsIn } from '../../core/plugin/settings.js';
import { a2aSettings } from '../../plugins/a2a/settings.js';

/**
 * Issue 12 item 2: a sender id is believed only when authenticated: a key bound to it, its own
 * agent token, or a signature checked against a key registered for it. Real auth and agents plugins.
 */
type Keys = { publicKey: KeyObject; privateKey: KeyObject };
const ed = (): Keys => generateKeyPairSync('ed25519');
const p256 = (): Keys => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pubJwk = (k: Keys) => k.publicKey.export({ format: 'jwk' });

const TRUSTED_SIGNER = p256();

/** RFC 8785 for the plain values used here (strings, small integers, objects): sorted keys, no spaces */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

async function sign(msg: Record<string, unknown>, key: KeyObject, alg: string, o: { detached?: boolean } = {}): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(canonical(msg))).setProtectedHeader({ alg }).sign(key);
  if (!o.detached) return jws;
  const [h, , s] = jws.split('.');
  return `${h}..${s}`;
}

const fin = (sender: string, over: Record<string, unknown> = {}) =>
  message({ sender_agent_id: sender, payload_type: 'financial_transaction', payload: invoice([{ amount: '2.50', quantity: 2 }], '5.00'), ...over });

async function start(a2aOver: Record<string, unknown> = {}): Promise<TestServer> {
  return startServer({
    plugins: [health, auth, agents, a2a],
    config: {
      auth: { anonymous_rate_per_minute: 1000 },
      a2a: {
        deployment_id: 'sender-auth',
        signing_key_pem: KEY_PEM,
        default_allow: true,
        trusted_agents: JSON.stringify([{ agent_id: 'trusted-signer', jwk: pubJwk(TRUSTED_SIGNER) }]),
        ...a2aOver,
      },
    } as ConfigOverrides,
  });
}

async function org(s: TestServer) {
  const acct = await signup(s);
  const admin = await createKey(s, acct.token, { name: 'agents', scopes: ['verify:read', 'agent:write'] });
  return { ...acct, admin: admin.key };
}

const send = (s: TestServer, msg: Record<string, unknown>, headers: Record<string, string>) =>
  s.request('POST', '/a2a/intercept', { body: msg, headers });

t.test('sender authentication on /a2a/intercept', async (t) => {
  const s = await start();
  t.teardown(() => s.close());
  const jwk = (await s.request('GET', '/.well-known/jwks.json')).body.keys[0];
  const claims = (r: { body: any }) => decodeJwt(r.body.attestation_jwt).claims.svc_a2a;
  const blockedAs = (tt: typeof t, r: { status: number; body: any }, failure: string, what: string) => {
    tt.equal(r.status, 200, `${what}: HTTP 200`);
    tt.equal(r.body.status, 'blocked', `${what}: blocked`);
    tt.equal(r.body.engine_used, 'trust_boundary');
    tt.same([r.body.details.constraint_id, r.body.details.trust_step, r.body.details.failure], ['a2a.sender_not_authenticated', 0, failure], what);
    tt.ok(verifyWithJwk(r.body.attestation_jwt, jwk), `${what}: the block is signed`);
    tt.equal(claims(r).sender_auth, 'none');
  };
  const a = await org(s);

  await t.test('an API key bound with a2a_senders', async (t) => {
    // a key may be bound only to an id its organisation owns (issue 38): here an agent it registered
    const billing = (await registerAgent(s, a.admin, { name: 'billing' })).agent_id;
    const bound = await createKey(s, a.token, { name: 'billing-key', a2a_senders: [billing] });
    t.same((bound as any).a2a_senders, [billing], 'the creation answer names the binding');
    const listed = await s.request('GET', '/auth/api-keys', { headers: bearer(a.token) });
    t.same(listed.body.keys.find((k: any) => k.id === bound.id).a2a_senders, [billing], 'GET /auth/api-keys lists it');

    const ok = await send(s, fin(billing), { 'x-api-key': bound.key });
    t.equal(ok.body.status, 'forwarded');
    t.equal(claims(ok).sender_auth, 'api_key', 'the verdict says how the sender was authenticated');
    blockedAs(t, await send(s, fin('ledger'), { 'x-api-key': bound.key }), 'no_credential', 'a bound key claiming another sender');
    const plain = await createKey(s, a.token, { name: 'plain' });
    blockedAs(t, await send(s, fin(billing), { 'x-api-key': plain.key }), 'no_credential', 'an unbound key of the same organisation');

    const rotated = await s.request('POST', '/admin/keys/rotate', { apiKey: bound.key, body: { key_id: bound.id } });
    t.equal(rotated.status, 201, 'a key rotates itself');
    const again = await send(s, fin(billing), { 'x-api-key': rotated.body.key });
    t.equal(claims(again).sender_auth, 'api_key', 'the binding is kept on rotation');
  });

  await t.test('only an owner or admin may bind a key to senders', async (t) => {
    const m = await signup(s);
    await s.kernel.app.store.collection<Record<string, unknown>>('auth.users').update(m.user.id, (u) => (u ? { ...u, role: 'member' } : undefined));
    const denied = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['billing'] }, headers: bearer(m.token) });
    t.equal(denied.status, 403);
    t.equal((await s.request('POST', '/auth/api-keys', { body: { name: 'x' }, headers: bearer(m.token) })).status, 201, 'a member still creates unbound keys');
    const bad = await s.request('POST', '/auth/api-keys', { body: { name: 'x', a2a_senders: ['a\u0001b'] }, headers: bearer(a.token) });
    t.equal(bad.status, 400, 'a sender id follows the agent id rules');
  });

  await t.test('an agent token speaks only as its own agent id', async (t) => {
    const one = await registerAgent(s, a.admin, { name: 'a' });
    const two = await registerAgent(s, a.admin, { name: 'a' });
    const ok = await send(s, fin(one.agent_id), { 'x-agent-token': one.agent_token });
    t.equal(ok.body.status, 'forwarded');
    t.equal(claims(ok).sender_auth, 'agent_token');
    blockedAs(t, await send(s, fin(two.agent_id), { 'x-agent-token': one.agent_token }), 'agent_token_mismatch', "another agent's id with this token");
    blockedAs(t, await send(s, fin('billing'), { 'x-agent-token': one.agent_token }), 'agent_token_mismatch', 'a free-form id with an agent token');
    const invalid = await send(s, fin(one.agent_id), { 'x-agent-token': 'svc_agent_' + 'A'.repeat(43) });
    t.equal(invalid.status, 401, 'an unknown agent token is refused before any verdict');
    t.equal((await send(s, fin(one.agent_id), {})).status, 401, 'no credential at all');
  });

  await t.test('a signature against the public_jwk of a registered agent', async (t) => {
    const keys = ed();
    const agent = await registerAgent(s, a.admin, { name: 'a', public_jwk: pubJwk(keys) });
    t.same(agent.public_jwk, pubJwk(keys), 'the registration answer shows the public key');
    const plain = await createKey(s, a.token, { name: 'relay' });
    const msg = fin(agent.agent_id);
    const embedded = await send(s, { ...msg, signature: await sign(msg, keys.privateKey, 'EdDSA') }, { 'x-api-key': plain.key });
    t.equal(embedded.body.status, 'forwarded');
    t.equal(claims(embedded).sender_auth, 'signature');
    const detached = await send(s, { ...msg, signature: await sign(msg, keys.privateKey, 'EdDSA', { detached: true }) }, { 'x-api-key': plain.key });
    t.equal(claims(detached).sender_auth, 'signature', 'the detached form (header..signature) verifies too');

    const sig = await sign(msg, keys.privateKey, 'EdDSA');
    const tampered = { ...msg, payload: invoice([{ amount: '2.50', quantity: 2 }], '5.01'), signature: sig };
    blockedAs(t, await send(s, tampered, { 'x-api-key': plain.key }), 'signature_invalid', 'a message changed after signing');
    const other = ed();
    blockedAs(t, await send(s, { ...msg, signature: await sign(msg, other.privateKey, 'EdDSA') }, { 'x-api-key': plain.key }), 'signature_invalid', 'a signature by another key');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(canonical(msg)).toString('base64url')}.`;
    blockedAs(t, await send(s, { ...msg, signature: none }, { 'x-api-key': plain.key }), 'signature_invalid', 'alg none');
    const hs = await new CompactSign(new TextEncoder().encode(canonical(msg))).setProtectedHeader({ alg: 'HS256' }).sign(Buffer.from(String(pubJwk(keys).x)));
    blockedAs(t, await send(s, { ...msg, signature: hs }, { 'x-api-key': plain.key }), 'signature_invalid', 'HS256 keyed with the public key');
    blockedAs(t, await send(s, { ...msg, signature: 'garbage' }, { 'x-api-key': plain.key }), 'signature_invalid', 'not a JWS');
    blockedAs(t, await send(s, msg, { 'x-api-key': plain.key }), 'no_credential', 'an absent signature');
    const bound = await createKey(s, a.token, { name: 'bound', a2a_senders: [agent.agent_id] });
    blockedAs(t, await send(s, tampered, { 'x-api-key': bound.key }), 'signature_invalid', 'a bad signature blocks even a bound key');

    t.equal((await s.request('DELETE', `/agents/${agent.agent_id}`, { apiKey: a.admin })).status, 200);
    blockedAs(t, await send(s, { ...msg, signature: sig }, { 'x-api-key': plain.key }), 'no_key_registered', "a deleted agent's key no longer authenticates");

    const b = await org(s);
    const relayB = await createKey(s, b.token, { name: 'relay' });
    blockedAs(t, await send(s, { ...msg, signature: sig }, { 'x-api-key': relayB.key }), 'no_key_registered', "another organisation's agent key does not count");
  });

  await t.test('a signature against the jwk of a trust entry (ES256)', async (t) => {
    const plain = await createKey(s, a.token, { name: 'relay2' });
    const msg = fin('trusted-signer');
    const ok = await send(s, { ...msg, signature: await sign(msg, TRUSTED_SIGNER.privateKey, 'ES256') }, { 'x-api-key': plain.key });
    t.equal(claims(ok).sender_auth, 'signature');
    t.equal(ok.body.status, 'forwarded');
    const wrongAlg = await sign(msg, ed().privateKey, 'EdDSA');
    blockedAs(t, await send(s, { ...msg, signature: wrongAlg }, { 'x-api-key': plain.key }), 'signature_invalid', 'EdDSA against a P-256 key');
  });

  await t.test('public_jwk must be a public P-256 or Ed25519 key', async (t) => {
    const priv = ed().privateKey.export({ format: 'jwk' });
    const bad = [
      priv,
      generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' }),
      generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }),
      { kty: 'oct', k: 'c2VjcmV0' },
      { ...pubJwk(p256()), y: Buffer.alloc(32, 1).toString('base64url') },
    ];
    for (const jwk of bad) {
      const r = await s.request('POST', '/agents/register', { apiKey: a.admin, body: { name: 'x', public_jwk: jwk } });
      t.equal(r.status, 400, `refused: ${JSON.stringify(Object.keys(jwk))}`);
      t.equal(r.body.errors[0].field, '/body/public_jwk');
    }
  });
});

t.test('token buckets are per organisation: one tenant cannot drain another', async (t) => {
  const s = await start({ max_requests_per_minute: 2 });
  t.teardown(() => s.close());
  const a = await org(s);
  const b = await org(s);
  // one sender id sent by two organisations: a signed sender (no organisation may bind another's id, issue 38)
  const ka = await createKey(s, a.token, { name: 'a' });
  const kb = await createKey(s, b.token, { name: 'b' });
  const msg = fin('trusted-signer');
  const signed = { ...msg, signature: await sign(msg, TRUSTED_SIGNER.privateKey, 'ES256') };
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await send(s, signed, { 'x-api-key': ka.key })).body.details?.constraint_id ?? 'ok');
  t.same(statuses, ['ok', 'ok', 'a2a.trust.rate_limited'], 'organisation A drained its bucket');
  const other = await send(s, signed, { 'x-api-key': kb.key });
  t.equal(other.body.status, 'forwarded', 'organisation B, same sender and receiver, still has its bucket');
});

t.test('SVC_A2A_SENDER_AUTH=off restores claim-only mode', async (t) => {
  t.equal(settingsIn(loadServiceConfig({ env: { SVC_A2A_SENDER_AUTH: 'off' }, file: null, overrides: { secrets: TEST_SECRETS } }), a2aSettings).sender_auth, 'off');
  t.equal(settingsIn(loadServiceConfig({ env: {}, file: null, overrides: { secrets: TEST_SECRETS } }), a2aSettings).sender_auth, 'on', 'on by default');
  const s = await start({ sender_auth: 'off' });
  t.teardown(() => s.close());
  const a = await org(s);
  const plain = await createKey(s, a.token, { name: 'plain' });
  const r = await send(s, fin('anyone'), { 'x-api-key': plain.key });
  t.equal(r.body.status, 'forwarded', 'a claimed sender passes');
  t.equal(decodeJwt(r.body.attestation_jwt).claims.svc_a2a.sender_auth, 'none', 'and the verdict says it was not authenticated');
  const billing = (await registerAgent(s, a.admin, { name: 'billing' })).agent_id;
  const bound = await createKey(s, a.token, { name: 'bound', a2a_senders: [billing] });
  t.equal(decodeJwt((await send(s, fin(billing), { 'x-api-key': bound.key })).body.attestation_jwt).claims.svc_a2a.sender_auth, 'api_key', 'a binding is still reported');
});

t.test('a trust entry jwk with private members stops start-up', async (t) => {
  const priv = ed().privateKey.export({ format: 'jwk' });
  await t.rejects(start({ trusted_agents: JSON.stringify([{ agent_id: 'x', jwk: priv }]) }), /jwk of "x" holds private key members/);
});

t.test('a signature covers the numbers the guards read: none may be written beyond what the signed doubles hold', async (t) => {
  const s = await start();
  t.teardown(() => s.close());
  const a = await org(s);
  const relay = await createKey(s, a.token, { name: 'relay' });
  // the sender's invoice is wrong by 20 (JSON numbers, as a JS client writes them): finance_guard blocks it
  const msg = fin('trusted-signer', { payload: invoice([{ amount: 100000000000000020, quantity: 1 }], 100000000000000000) });
  const signature = await sign(msg, TRUSTED_SIGNER.privateKey, 'ES256');
  const honest = JSON.stringify({ ...msg, signature });
  const sent = await s.request('POST', '/a2a/intercept', { raw: honest, headers: { 'x-api-key': relay.key, 'content-type': 'application/json' } });
  t.equal(sent.body.status, 'blocked', 'the signed invoice as written is blocked');
  t.equal(sent.body.engine_used, 'finance_guard');
  // a relay rewrites both numbers to decimals that read as the same doubles (so RFC 8785, and the
  // signature, see no change) but that the exact-decimal guard reads as an invoice that adds up
  const forged = honest.replace('"claimed_total":100000000000000000', '"claimed_total":100000000000000007.995').replace('"amount":100000000000000020', '"amount":100000000000000008.004');
  t.not(forged, honest);
  t.equal(JSON.stringify(JSON.parse(forged)), honest, 'the same message once read as doubles');
  const r = await s.request('POST', '/a2a/intercept', { raw: forged, headers: { 'x-api-key': relay.key, 'content-type': 'application/json' } });
  t.equal(r.body.status, 'blocked', 'the rewritten invoice is not forwarded under the sender signature');
  t.same([r.body.details?.constraint_id, r.body.details?.failure], ['a2a.sender_not_authenticated', 'signature_invalid']);
});
