import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { startPeer } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';

/**
 * Issue 38, item 12: a peer configured by its card URL names its own endpoint. An endpoint on another
 * origin is the card's word, and used to be followed anywhere — loopback, the metadata address, the
 * sidecar's neighbours. Now it goes out only when a2a.proxy.egress_allow admits the address it
 * resolves to. Only loopback addresses appear here, even in a regression; the admitted one is the
 * test's own peer, admitted by an explicit CIDR.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const send = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: INVOICE }] } } };

/** an unsigned v1.0 card whose JSON-RPC interface is whatever the test sets */
async function cardHost(t: Test) {
  let endpoint = '';
  let fetches = 0;
  const server = createServer((req, res) => {
    fetches++;
    const card = { name: 'ledger', description: 'books invoices', version: '1.0.0', supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return {
    cardUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/agent-card.json`,
    point(url: string) {
      endpoint = url;
    },
    fetches: () => fetches,
  };
}

t.test('a card naming an internal endpoint on another origin: refused by default, nothing sent', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const host = await cardHost(t);
  const s = await proxySidecar({ peers: { ledger: host.cardUrl }, proxy: { timeout_ms: 3000, connect_timeout_ms: 1000, card_ttl_seconds: 0 } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const port = new URL(peer.url).port;
  for (const endpoint of [
    `http://127.0.0.1:${port}/rpc`,
    `http://localhost:${port}/rpc`,
    `http://[::ffff:127.0.0.1]:${port}/rpc`,
    `http://[::1]:${port}/rpc`,
    // metadata and private literals are refused the same way, before any connection; they are held
    // in test/core/unit/egress.ts, where a spy proves no connect is attempted: a regression here
    // would send real packets to them
  ]) {
    host.point(endpoint);
    const before = host.fetches();
    const r = await s.request('POST', '/a2a/peers/ledger', { body: send, headers: { 'a2a-version': '1.0', 'x-agent-token': me.token } });
    t.equal(host.fetches(), before + 1, `${endpoint}: the card was read`);
    t.equal(r.body.error?.code, -32053, endpoint);
    t.equal(r.body.error?.data?.reason, 'egress_refused', endpoint);
    t.equal(r.body.error?.data?.verdict?.status, 'forwarded', 'the message itself passed; only the destination is refused');
  }
  t.equal(peer.received.length, 0, 'nothing reached the loopback peer');
  t.match(await s.kernel.app.metrics.registry.metrics(), /svc_a2a_proxy_upstream_errors_total\{peer="ledger",kind="egress_refused"\} 4/);
});

t.test('the same card, with the loopback peer admitted explicitly: forwarded', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const host = await cardHost(t);
  const port = new URL(peer.url).port;
  const s = await proxySidecar({ peers: { ledger: host.cardUrl }, proxy: { timeout_ms: 3000, connect_timeout_ms: 1000, egress_allow: ['127.0.0.1/32'] } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  host.point(`http://127.0.0.1:${port}/rpc`);
  const ok = await s.request('POST', '/a2a/peers/ledger', { body: send, headers: { 'a2a-version': '1.0', 'x-agent-token': me.token } });
  t.ok(ok.body.result, JSON.stringify(ok.body));
  t.equal(peer.received.length, 1, 'delivered');
});

t.test('a name resolving to loopback is refused even when names are listed; the configured endpoint is not checked', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const host = await cardHost(t);
  const port = new URL(peer.url).port;
  const s = await proxySidecar({
    peers: { ledger: host.cardUrl, direct: `${peer.url}/rpc` },
    proxy: { timeout_ms: 3000, connect_timeout_ms: 1000, card_ttl_seconds: 0, egress_allow: ['public', 'localhost'] },
  });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  host.point(`http://localhost:${port}/rpc`);
  const r = await s.request('POST', '/a2a/peers/ledger', { body: send, headers: { 'a2a-version': '1.0', 'x-agent-token': me.token } });
  t.equal(r.body.error?.data?.reason, 'egress_refused', 'a listed name admits only its public addresses');
  t.equal(peer.received.length, 0);
  const direct = await s.request('POST', '/a2a/peers/direct', { body: send, headers: { 'a2a-version': '1.0', 'x-agent-token': me.token } });
  t.ok(direct.body.result, 'an operator-configured loopback endpoint is config, not a learned URL');
  t.equal(peer.received.length, 1);
});

t.test('a malformed egress_allow entry stops start-up', async (t) => {
  await t.rejects(proxySidecar({ proxy: { egress_allow: ['10.0.0.0/33'] } }), /a2a\.proxy\.egress_allow \(SVC_A2A_PROXY_EGRESS_ALLOW\): "10\.0\.0\.0\/33" is not a valid address or CIDR/);
});
