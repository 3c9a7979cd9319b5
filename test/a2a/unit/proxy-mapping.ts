import t from 'tap';
import { mapMessage } from '../../../plugins/a2a/proxy/mapping.js';
import { parsePeers, parseTrustedIssuers } from '../../../plugins/a2a/proxy/config.js';
import { parseRpc } from '../../../plugins/a2a/proxy/jsonrpc.js';
import { cardSigningBytes } from '../../../plugins/a2a/proxy/cards.js';

/** Units of the proxy: message → guard payloads, JSON-RPC envelope, peer and issuer settings, card bytes. */
const invoice = { claimed_total: '5', line_items: [{ amount: '5' }] };

t.test('parts map to guard payloads in both the v0.3 and the v1.0 shape', async (t) => {
  const v1 = mapMessage({ parts: [{ data: invoice }, { text: 'hello' }] });
  t.same(v1, { ok: true, items: [{ payloadType: 'financial_transaction', payload: { data: invoice } }], metadata: {} });
  const v03 = mapMessage({ kind: 'message', parts: [{ kind: 'data', data: { code: 'print(1)', language: 'python' } }, { kind: 'data', data: { assertions: [{ claim: 'a', negated: false }] } }] });
  t.same(v03.ok && v03.items, [
    { payloadType: 'code_execution', payload: { code: 'print(1)', language: 'python' } },
    { payloadType: 'logic_assertion', payload: { assertions: [{ claim: 'a', negated: false }] } },
  ]);
  const chat = mapMessage({ parts: [{ kind: 'text', text: 'hi' }] });
  t.same(chat.ok && chat.items.map((i) => i.payloadType), ['general'], 'nothing a guard reads: one passthrough item');
  const code = mapMessage({ parts: [{ text: 'import os' }, { text: 'os.system("id")' }], metadata: { proofgate: { payload_type: 'code_execution' } } });
  t.same(code.ok && code.items, [{ payloadType: 'code_execution', payload: { code: 'import os\nos.system("id")' } }], 'explicit type: text parts are the code');
  const forced = mapMessage({ parts: [{ data: { q: 'select 1' } }], metadata: { proofgate: { payload_type: 'data_query' } } });
  t.same(forced.ok && forced.items, [{ payloadType: 'data_query', payload: { q: 'select 1' } }]);
  const named = mapMessage({ parts: [{ data: invoice }], metadata: { proofgate: { sender_agent_id: 'billing' } } });
  t.equal(named.ok && named.metadata.sender_agent_id, 'billing');
});

t.test('malformed messages are refused with a reason', async (t) => {
  for (const m of [null, [], {}, { parts: [] }, { parts: 'x' }, { parts: [1] }, { parts: Array(65).fill({ text: 'x' }) }, { parts: [{ text: 'x' }], metadata: { proofgate: { payload_type: 'poetry' } } }]) {
    const r = mapMessage(m);
    t.equal(r.ok, false, JSON.stringify(m)?.slice(0, 60));
  }
  t.equal(mapMessage({ parts: Array(17).fill({ data: invoice }) }).ok, false, 'at most 16 verifiable parts');
});

t.test('JSON-RPC envelope', async (t) => {
  const ok = parseRpc(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'message/stream', params: { message: {} } })));
  t.same(ok.ok && [ok.req.kind, ok.req.id], ['stream', 'a']);
  const codes = (raw: string) => {
    const r = parseRpc(Buffer.from(raw));
    return r.ok ? null : (r.reply.body as any).error.code;
  };
  t.equal(codes('{'), -32700);
  t.equal(codes('[{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}]'), -32600, 'batches are not proxied');
  t.equal(codes('{"jsonrpc":"1.0","id":1,"method":"SendMessage","params":{}}'), -32600);
  t.equal(codes('{"jsonrpc":"2.0","id":1,"method":"toString","params":{}}'), -32601, 'no prototype lookups');
  t.equal(codes('{"jsonrpc":"2.0","id":1,"method":"SendMessage"}'), -32602);
});

t.test('peers and trusted issuers are validated at start-up', async (t) => {
  const peers = parsePeers('{"a":"http://a:1/rpc","b":"https://b/.well-known/agent-card.json","c":{"url":"http://c/","jwks_url":"http://c/jwks","require_signed_card":true}}');
  t.equal(peers.get('a')!.endpoint!.href, 'http://a:1/rpc');
  t.equal(peers.get('a')!.cardUrl.href, 'http://a:1/.well-known/agent-card.json');
  t.equal(peers.get('b')!.endpoint, null, 'a card URL: the endpoint comes from the card');
  t.equal(peers.get('c')!.requireSignedCard, true);
  t.same(parsePeers('').size, 0);
  for (const bad of ['[1]', '{"a":"ftp://x"}', '{"a":"http://u:p@x/"}', '{"a":{"url":"http://x","extra":1}}', '{"\\u0001":"http://x"}', '{nope']) {
    t.throws(() => parsePeers(bad), bad);
  }
  t.equal(parseTrustedIssuers('[{"issuer":"did:svc:a2a:x","jwks_url":"http://x/jwks"}]').length, 1);
  t.throws(() => parseTrustedIssuers('[{"issuer":"did:svc:a2a:x"}]'), /exactly one/);
  t.throws(() => parseTrustedIssuers('[{"issuer":"x","jwks":{"keys":[]}}]'), /DID/);
});

t.test('card signing bytes: RFC 8785 without signatures and empty values', async (t) => {
  const bytes = cardSigningBytes({ name: 'x', signatures: [{ protected: 'p' }], b: '', c: [], d: {}, e: null, z: { y: 1, a: [2, ''] } });
  t.equal(bytes.toString(), '{"name":"x","z":{"a":[2],"y":1}}');
});
