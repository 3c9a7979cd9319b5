import t from 'tap';
import { message, startA2AWithoutCode, TEST_API_KEY } from '../helpers/a2a.js';
import { data, sdkClient, startPeer, userMessage } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';

/**
 * Issue 38, item 7: a body that names one member twice is read by JSON.parse as its last copy and
 * by many other parsers as its first. The proxy forwards the bytes it received, so a message checked
 * on one copy would be delivered as the other: two `"parts"` (the guard passes one invoice, a peer
 * keeping the first reads another), two `"method"` (a verified send read as an unverified task read).
 * Every body the proxy, the inbound guard, ext_authz or /a2a/intercept verifies is refused whole
 * when a member repeats, at any depth, before anything reads it.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const WRONG = { claimed_total: '50.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const J = JSON.stringify;
const part = (d: unknown) => J([{ data: d }]);
const msgOpen = `{"messageId":"m-dup","role":"ROLE_USER"`;

/** hostile bodies, each verified on its last copy today and read on its first by a first-wins peer */
const HOSTILE: Array<[string, string]> = [
  ['two "parts": the guard reads the second', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${msgOpen},"parts":${part(WRONG)},"parts":${part(INVOICE)}}}}`],
  ['two "method": a send read as a task read', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"id":"t-1","message":${msgOpen},"parts":${part(WRONG)}}},"method":"GetTask"}`],
  ['a repeat spelled with an escape', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${msgOpen},"parts":${part(WRONG)},"p\\u0061rts":${part(INVOICE)}}}}`],
  ['a repeat deep inside a part', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${msgOpen},"parts":[{"data":{"claimed_total":"50.00","claimed_total":"5.00","line_items":${J(INVOICE.line_items)}}}]}}}`],
  ['two "params"', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${msgOpen},"parts":${part(WRONG)}}},"params":{"message":${msgOpen},"parts":${part(INVOICE)}}}}`],
];

t.test('outbound proxy: a repeated member is -32600 and nothing reaches the peer', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const h = { 'x-agent-token': me.token, 'content-type': 'application/json', 'a2a-version': '1.0' };
  for (const [name, raw] of HOSTILE) {
    const before = peer.received.length;
    const r = await s.request('POST', '/a2a/peers/ledger', { raw, headers: h });
    t.equal(r.status, 200, `${name}: a JSON-RPC answer`);
    t.equal(r.body?.error?.code, -32600, `${name}: Invalid Request (${r.text.slice(0, 200)})`);
    t.equal(r.body?.id, null, `${name}: the id is not echoed, it may be a repeated member itself`);
    t.match(r.body?.error?.message, /twice in one object/);
    t.equal(peer.received.length, before, `${name}: nothing reached the peer`);
  }
  // the official SDK client never repeats a member: its messages still go through
  const client = await sdkClient(`${s.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token });
  await client.sendMessage({ message: userMessage([data(INVOICE), data(INVOICE)]) } as never);
  t.equal(peer.messages.length, 1, 'an SDK message with the same members in two parts is forwarded');
});

t.test('inbound guard: a repeated member is -32600 and nothing reaches the local agent', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  // sender_auth off: without it every unvouched message is blocked anyway, and the test would not
  // tell the repeated member's refusal from that one
  const s = await proxySidecar({ sender_auth: 'off', inbound: { target: `${peer.url}/rpc`, agent_id: 'ledger' } });
  t.teardown(() => s.close());
  const ok = await s.request('POST', '/a2a/inbound', { body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-ok', role: 'ROLE_USER', parts: [{ data: INVOICE }] } } }, headers: { 'a2a-version': '1.0' } });
  t.notOk(ok.body.error, `control: the invoice alone is delivered (${ok.text.slice(0, 200)})`);
  t.equal(peer.received.length, 1);
  for (const [name, raw] of HOSTILE) {
    const r = await s.request('POST', '/a2a/inbound', { raw, headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } });
    t.equal(r.body?.error?.code, -32600, `${name}: Invalid Request (${r.text.slice(0, 200)})`);
  }
  t.equal(peer.received.length, 1, 'none of them reached the local agent');
});

t.test('ext_authz: a repeated member is 400 invalid_json, never an allow', async (t) => {
  const s = await proxySidecar({ peers: { ledger: 'http://ledger.mesh:8080/' } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const h = { 'x-agent-token': me.token, 'x-a2a-receiver': 'ledger', 'content-type': 'application/json' };
  for (const [name, raw] of HOSTILE) {
    const r = await s.request('POST', '/ext-authz/rpc', { raw, headers: h });
    t.equal(r.status, 400, `${name}: Envoy denies (${r.text.slice(0, 200)})`);
    t.equal(r.body?.code, 'invalid_json');
    t.equal(r.headers.get('x-proofgate-verdict'), null, `${name}: no verdict to carry upstream`);
  }
});

t.test('/a2a/intercept: a repeated member is 400 invalid_json, no verdict is signed', async (t) => {
  const s = await startA2AWithoutCode();
  t.teardown(() => s.close());
  const body = J(message({ payload_type: 'financial_transaction', payload: { data: INVOICE } }));
  const ok = await s.request('POST', '/a2a/intercept', { raw: body, headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' } });
  t.equal(ok.body.status, 'forwarded', 'control: the invoice alone is forwarded');
  const cases: Array<[string, string]> = [
    ['the payload twice', body.replace('"payload":', `"payload":${J({ data: WRONG })},"payload":`)],
    ['the total twice', body.replace('"claimed_total":', '"claimed_total":"50.00","claimed_total":')],
    ['the receiver twice', body.replace('"receiver_agent_id":', '"receiver_agent_id":"bank","receiver_agent_id":')],
  ];
  for (const [name, raw] of cases) {
    const r = await s.request('POST', '/a2a/intercept', { raw, headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' } });
    t.equal(r.status, 400, `${name} (${r.text.slice(0, 200)})`);
    t.equal(r.body?.code, 'invalid_json');
  }
});
