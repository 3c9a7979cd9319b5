import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import attestation from '../../plugins/attestation/index.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import { KEY_PEM } from '../helpers/a2a.js';
import { sdkClient, startPeer } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';
import { claimsFor, recordFor } from '../helpers/attestation/forge.js';
import { startServer, testAuthPlugin, TEST_API_KEY, type TestServer } from '../helpers/server.js';
import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import auth from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';

/**
 * Issue 38, item 5: the cards the sidecar serves are signed with its A2A key, and name where to
 * send messages (their interfaces) and where that key is (`jku`). Those URLs come from
 * configuration (server.public_url, else the address the server is bound to), never from the
 * request: with `Host: attacker.example` a caller used to get a card signed by us that pointed at
 * its own host. On a wildcard bind without public_url there is no address to name: 503.
 */
const ATTACKER = 'attacker.example';

/** a GET with the Host a hostile caller chooses (fetch cannot set it, node:http can) */
function getWithHost(base: string, path: string, host: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers: { ...headers, host } }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b ? JSON.parse(b) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

const jkuOf = (card: any) => JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString('utf8')).jku as string;
const urlsOf = (card: any) => (card.supportedInterfaces as Array<{ url: string }>).map((i) => i.url);

async function verifiesWithOurKey(t: Test, s: TestServer, card: unknown): Promise<void> {
  const keys = (await s.request('GET', '/.well-known/jwks.json')).body.keys;
  await t.resolves(verifyAgentCardSignature(async (kid) => keys.find((k: any) => k.kid === kid))(AgentCard.fromJSON(card)), 'the SDK verifies the sidecar signature');
}

t.test('no public_url: the cards name the bound address whatever the Host says', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` }, inbound: { target: `${peer.url}/rpc`, agent_id: 'books' } });
  t.teardown(() => s.close());
  const me = await agentToken(s);

  const card = await getWithHost(s.url, '/a2a/peers/ledger/.well-known/agent-card.json', ATTACKER, { 'x-agent-token': me.token });
  t.equal(card.status, 200);
  t.same(urlsOf(card.body), [`${s.url}/a2a/peers/ledger`, `${s.url}/a2a/peers/ledger`], 'the interfaces (JSON-RPC, HTTP+JSON) are the sidecar, not the Host');
  t.equal(jkuOf(card.body), `${s.url}/.well-known/jwks.json`, 'the jku is the sidecar’s JWKS, not the Host’s');
  await verifiesWithOurKey(t, s, card.body);

  const local = await getWithHost(s.url, '/.well-known/agent-card.json', `${ATTACKER}:8080`);
  t.equal(local.status, 200);
  t.same(urlsOf(local.body), [`${s.url}/a2a/inbound`], 'the inbound card too');
  t.equal(jkuOf(local.body), `${s.url}/.well-known/jwks.json`);
  t.notMatch(JSON.stringify(local.body), ATTACKER);

  // the official SDK client discovers the peer through the card and reaches it where the card says
  const client = await sdkClient(`${s.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token });
  t.ok(client, 'the SDK client resolves the served card');
});

t.test('public_url set: the cards name it, on any bind and whatever the Host says', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const s = await startServer({
    plugins: [health, auth, agents, a2a],
    config: {
      server: { host: '0.0.0.0', public_url: 'https://sidecar.example/' },
      auth: { anonymous_rate_per_minute: 1000 },
      a2a: { deployment_id: 'sidecar-a', signing_key_pem: KEY_PEM, default_allow: true, peers: { ledger: `${peer.url}/rpc` }, inbound: { target: `${peer.url}/rpc`, agent_id: 'books' } },
    } as ConfigOverrides,
  });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const card = await getWithHost(s.url, '/a2a/peers/ledger/.well-known/agent-card.json', ATTACKER, { 'x-agent-token': me.token });
  t.same(urlsOf(card.body), ['https://sidecar.example/a2a/peers/ledger', 'https://sidecar.example/a2a/peers/ledger']);
  t.equal(jkuOf(card.body), 'https://sidecar.example/.well-known/jwks.json', 'no doubled slash from the configured trailing one');
  const local = await getWithHost(s.url, '/.well-known/agent-card.json', ATTACKER);
  t.same(urlsOf(local.body), ['https://sidecar.example/a2a/inbound']);
});

t.test('a wildcard bind without public_url serves no card (503), and still proxies', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const s = await startServer({
    plugins: [health, auth, agents, a2a],
    config: {
      server: { host: '0.0.0.0' },
      auth: { anonymous_rate_per_minute: 1000 },
      a2a: { deployment_id: 'sidecar-a', signing_key_pem: KEY_PEM, default_allow: true, peers: { ledger: `${peer.url}/rpc` }, inbound: { target: `${peer.url}/rpc`, agent_id: 'books' } },
    } as ConfigOverrides,
  });
  t.teardown(() => s.close());
  const base = s.url.replace('0.0.0.0', '127.0.0.1');
  const me = await agentToken(s);
  const card = await getWithHost(base, '/a2a/peers/ledger/.well-known/agent-card.json', ATTACKER, { 'x-agent-token': me.token });
  t.equal(card.status, 503);
  t.equal(card.body.code, 'a2a_public_url_unset');
  t.equal(peer.cardFetches(), 0, 'refused before the peer is asked');
  const local = await getWithHost(base, '/.well-known/agent-card.json', ATTACKER);
  t.equal(local.status, 503);
  t.equal(local.body.code, 'a2a_public_url_unset');
  const sent = await s.request('POST', '/a2a/peers/ledger', {
    body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
    headers: { 'x-agent-token': me.token, 'a2a-version': '1.0' },
  });
  t.equal(peer.received.length, 1, `the proxy itself needs no URL of its own (${sent.text.slice(0, 120)})`);
});

t.test('a badge link names the bound address, not the Host', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), attestation] });
  t.teardown(() => s.close());
  const now = Math.floor(Date.now() / 1000);
  const c = claimsFor({ proof_ref: 'sha256:' + '0'.repeat(64), iat: now, exp: now + 3600 });
  await s.kernel.app.store.collection<AttestationRecord>('attestations').put(c.jti, recordFor(c, 'org-test'));
  const r = await getWithHost(s.url, `/attestation/${c.jti}/badge-url`, ATTACKER, { 'x-api-key': TEST_API_KEY }, 'POST');
  t.equal(r.status, 200);
  t.equal(r.body.url, s.url + r.body.path);
});
