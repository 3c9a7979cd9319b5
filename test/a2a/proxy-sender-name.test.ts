import t from 'tap';
import { namedSender } from '../../plugins/a2a/proxy/mapping.js';
import { startPeer } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';

/**
 * The sender a message names travels to the peer with it (metadata.proofgate.sender_agent_id of the
 * message or of params). The verdict must be for that sender: a name the proxy skipped (not a string,
 * or shadowed by the other level) let an agent token's message go out under the agent's own verdict
 * while the message itself named someone else.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };

t.test('a message that names another sender than its verdict never goes out', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` } }, undefined, 'names');
  t.teardown(() => s.close());
  const agent = await agentToken(s);
  const me = { agent_token: agent.token, agent_id: agent.agentId };
  const send = (messageMeta: unknown, paramsMeta: unknown) =>
    s.request('POST', '/a2a/peers/ledger', {
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: INVOICE }], ...(messageMeta ? { metadata: messageMeta } : {}) }, ...(paramsMeta ? { metadata: paramsMeta } : {}) } },
      headers: { 'x-agent-token': me.agent_token, 'a2a-version': '1.0' },
    });
  const as = (id: unknown) => ({ proofgate: { sender_agent_id: id } });

  const own = await send(as(me.agent_id), as(me.agent_id));
  t.notOk(own.body.error, 'control: both levels name the agent itself');
  const other = await send(undefined, as('billing'));
  t.equal(other.body.error?.code, -32050, 'control: naming another sender is blocked');
  const n = peer.messages.length;
  for (const [what, m, p] of [
    ['a number at the message level hides billing at the params level', as(42), as('billing')],
    ['an empty name at the message level hides billing', as(''), as('billing')],
    ['its own id at the message level, billing at the params level', as(me.agent_id), as('billing')],
  ] as const) {
    const r = await send(m, p);
    t.equal(r.body.error?.code, -32602, what);
  }
  t.equal(peer.messages.length, n, 'none of them reached the peer');
});

t.test('namedSender', async (t) => {
  t.same(namedSender({ parts: [] }, {}), { ok: true, id: undefined });
  t.same(namedSender({ metadata: { proofgate: { sender_agent_id: 'a' } } }, { metadata: { proofgate: { sender_agent_id: 'a' } } }), { ok: true, id: 'a' });
  t.same(namedSender({}, { metadata: { proofgate: { sender_agent_id: 'b' } } }), { ok: true, id: 'b' });
  t.equal(namedSender({ metadata: { proofgate: { sender_agent_id: null } } }, {}).ok, false);
  t.equal(namedSender({ metadata: { proofgate: { sender_agent_id: 'a' } } }, { metadata: { proofgate: { sender_agent_id: 'b' } } }).ok, false);
});
