import { request as httpRequest } from 'node:http';
import t from 'tap';
import a2a from '../../plugins/a2a/index.js';
import agents from '../../plugins/agents/index.js';
import auth from '../../plugins/auth/index.js';
import health from '../../plugins/health/index.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import { startServer } from '../helpers/server.js';
import { createKey, signup } from '../helpers/tenancy.js';
import { KEY_PEM } from '../helpers/a2a.js';

/**
 * ext_authz decides for the request Envoy is about to send to the Host it names. `x-a2a-receiver`
 * comes from the calling agent (it is in Envoy's allowed_headers): it may pick among peers that share
 * that host, but it must not move the verification to another receiver than the one the request goes
 * to (whose trust boundary, blocked pairs or blocklist, would then never be applied), and it must
 * name a configured peer (docs/a2a-proxy.md: an unknown receiver is 403).
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: INVOICE }] } } });

t.test('x-a2a-receiver cannot point the check at another receiver than the Host', async (t) => {
  const s = await startServer({
    plugins: [health, auth, agents, a2a],
    config: {
      auth: { anonymous_rate_per_minute: 1000 },
      a2a: {
        deployment_id: 'authz',
        signing_key_pem: KEY_PEM,
        default_allow: true,
        // bank takes no agent traffic at all; ledger and audit sit behind one mesh gateway host
        // vault, like bank, takes none; it is configured on its scheme's default port
        blocklist: ['bank', 'vault'],
        peers: {
          ledger: 'http://gw.mesh:8080/ledger',
          audit: 'http://gw.mesh:8080/audit',
          bank: 'http://bank.mesh:8080/',
          notes: 'http://notes.mesh:8080/',
          vault: 'http://vault.mesh/',
          // two peers by one name on other ports than any Host below names
          east: 'http://pair.mesh:7001/',
          west: 'http://pair.mesh:7002/',
        },
      },
    } as ConfigOverrides,
  });
  t.teardown(() => s.close());
  const acct = await signup(s);
  const admin = await createKey(s, acct.token, { name: 'agents', scopes: ['verify:read', 'agent:write'] });
  const token = (await s.request('POST', '/agents/register', { apiKey: admin.key, body: { name: 'buyer' } })).body.agent_token as string;

  // what Envoy sends: the original request's Host (fetch cannot set it, node:http can)
  const check = (host: string, receiver?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers: Record<string, string> = { 'x-agent-token': token, host, 'content-type': 'application/json', ...(receiver ? { 'x-a2a-receiver': receiver } : {}) };
      const req = httpRequest(`${s.url}/ext-authz/rpc`, { method: 'POST', headers }, (res) => {
        let b = '';
        res.on('data', (c) => (b += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
      });
      req.on('error', reject);
      req.end(body);
    });

  t.equal((await check('bank.mesh:8080')).status, 403, 'control: a message to the blocklisted bank is denied');
  const moved = await check('bank.mesh:8080', 'ledger');
  t.equal(moved.status, 403, 'naming ledger does not let a message bound for bank through');
  t.match(JSON.parse(moved.body), { code: 'a2a_ext_authz_denied' });
  t.equal((await check('bank.mesh:8080', 'bank')).status, 403, 'naming the Host’s own peer is the same check');
  t.equal((await check('gw.mesh:8080', 'audit')).status, 200, 'the header picks among the peers behind one host');
  t.equal((await check('gw.mesh:8080', 'notes')).status, 403, 'but not a peer on another host');
  const unknown = await check('127.0.0.1', 'nobody');
  t.equal(unknown.status, 403, 'an unknown receiver is denied');
  t.equal((await check('127.0.0.1', 'ledger')).status, 200, 'a Host no peer has: the header names the receiver');

  // issue 38, item 6: the Host in another spelling of the same host is that host
  const blocked = 'a2a.trust.receiver_blocklisted';
  for (const host of ['BANK.MESH:8080', 'bank.mesh.:8080', 'Bank.Mesh.:08080', 'b%61nk.mesh:8080']) {
    const named = await check(host, 'ledger');
    t.equal(named.status, 403, `${host} with x-a2a-receiver: ledger is still bound for bank`);
    t.match(named.body, /another host/);
    const alone = await check(host);
    t.equal(alone.status, 403, `${host} alone`);
    t.equal(JSON.parse(alone.body).constraint_id, blocked, `${host} is checked as bank, whose blocklist entry holds`);
  }
  for (const host of ['vault.mesh:80', 'VAULT.MESH', 'vault.mesh.']) {
    t.equal((await check(host, 'ledger')).status, 403, `${host} (the default port, written or not) with x-a2a-receiver: ledger`);
    t.equal(JSON.parse((await check(host)).body).constraint_id, blocked, `${host} alone maps to vault`);
  }
  t.equal(JSON.parse((await check('bank.mesh:9999')).body).constraint_id, blocked, 'the only peer by that name is the receiver on another port too');
  t.equal((await check('bank.mesh:9999', 'ledger')).status, 403, 'and the header cannot leave that name');
  t.equal((await check('GW.MESH.:8080', 'audit')).status, 200, 'the header still picks among the peers of one host, spelled any way');
  t.equal((await check('pair.mesh:7003')).status, 403, 'two peers by one name and neither port: no guess');
  t.equal((await check('pair.mesh:7003', 'west')).status, 200, 'the header picks one of them');
  t.equal((await check('pair.mesh:7003', 'ledger')).status, 403, 'but not a peer by another name');
  for (const host of ['bank.mesh@gw.mesh:8080', 'bank.mesh:99999', 'bank..mesh', 'xn--zz.mesh']) {
    const r = await check(host, 'ledger');
    t.equal(r.status, 403, `a Host that does not parse (${host}) is denied, the header notwithstanding`);
    t.match(r.body, /no Host/);
  }
});
