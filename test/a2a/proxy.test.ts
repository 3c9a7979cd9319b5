import { createPrivateKey, createPublicKey } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import t from 'tap';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { keyFingerprint, verifyVerdict } from '../../plugins/a2a/index.js';
import { KEY_PEM, p256Pem } from '../helpers/a2a.js';
import { data, sdkClient, startPeer, text, userMessage } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';

/**
 * Issue 18: the sidecar as an A2A hop, driven by the official SDK on both sides: an SDK client
 * pointed at /a2a/peers/{receiver}, an SDK server as the peer.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const WRONG = { claimed_total: '50.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };

const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
/** what an A2A v1.0 client sends beside its credential */
const V1 = { 'a2a-version': '1.0' };
const wireMessage = (parts: unknown[], metadata?: unknown) => ({ messageId: 'm-1', role: 'ROLE_USER', parts, ...(metadata ? { metadata } : {}) });

t.test('outbound proxy with the SDK as client and peer', async (t) => {
  const peer = await startPeer({ signed: true });
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl }, gone: 'http://127.0.0.1:9/rpc' } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const client = await sdkClient(`${s.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token });

  await t.test('a correct invoice reaches the peer with a verdict that verifies against the JWKS', async (t) => {
    const before = peer.received.length;
    const res = (await client.sendMessage({ message: userMessage([data(INVOICE)]) } as never)) as any;
    t.ok(res, 'the peer answered through the sidecar');
    t.equal(peer.received.length, before + 1);
    const h = peer.received.at(-1)!.headers;
    t.notOk(h['x-agent-token'], 'the local credential is not passed on');
    const token = String(h['x-proofgate-verdict']);
    const v = await verifyVerdict(token, { jwksUrl: `${s.url}/.well-known/jwks.json`, payload: { data: INVOICE } });
    t.equal(v.valid, true, 'the verdict verifies and its sub is the invoice payload');
    if (v.valid) t.match(v.claims.svc_a2a, { verdict: 'forwarded', engine: 'finance_guard', sender: me.agentId, receiver: 'ledger', sender_auth: 'agent_token' });
    t.equal(peer.messages.at(-1)!.parts[0].content?.$case, 'data', 'the message arrived as sent');
  });

  await t.test('a wrong total never reaches the peer; the client sees the JSON-RPC error', async (t) => {
    const before = peer.received.length;
    const err: any = await client.sendMessage({ message: userMessage([data(WRONG)]) } as never).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(err, 'the SDK client rejects');
    t.equal(peer.received.length, before, 'nothing reached the peer');
    const raw = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: wireMessage([{ data: WRONG }]) }), headers: { ...V1, 'x-agent-token': me.token } });
    t.equal(raw.status, 200);
    t.equal(raw.body.error.code, -32050);
    t.equal(raw.body.error.data.verdict.status, 'blocked');
    t.equal(raw.body.error.data.verdict.engine_used, 'finance_guard');
    t.equal(peer.received.length, before);
  });

  await t.test('a streamed answer arrives in order, chunk by chunk', async (t) => {
    const events: string[] = [];
    let taskId = '';
    for await (const ev of client.sendMessageStream({ message: userMessage([data(INVOICE)], { stream: true }) } as never)) {
      const e = ev as any;
      const p = e.payload ?? e;
      if (p.$case === 'task') {
        taskId = p.value.id;
        events.push('task');
      } else if (p.$case === 'statusUpdate') {
        const st = p.value.status;
        events.push(st.message ? st.message.parts[0].content.value : String(st.state));
      } else events.push(String(p.$case));
      // the peer sends its next chunk only after this one arrived: a buffering hop would stall here
      peer.nextChunk();
    }
    t.same(events.slice(0, 4), ['task', 'chunk 1', 'chunk 2', 'chunk 3']);
    t.equal(events.length, 5, 'and the final status');
    const task = (await client.getTask({ id: taskId } as never)) as any;
    t.equal(task.id, taskId, 'tasks/get passes through to the peer');
  });

  await t.test('the signed AgentCard is served rewritten and re-signed', async (t) => {
    const r = await s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json', { headers: { ...V1, 'x-agent-token': me.token } });
    t.equal(r.status, 200);
    t.same(r.body.supportedInterfaces.map((i: any) => [i.url, i.protocolBinding]), [[`${s.url}/a2a/peers/ledger`, 'JSONRPC'], [`${s.url}/a2a/peers/ledger`, 'HTTP+JSON']]);
    t.equal(r.body.name, 'ledger');
    const jwks = createRemoteJWKSet(new URL(`${s.url}/.well-known/jwks.json`));
    const verify = verifyAgentCardSignature(async (kid) => {
      const keys = (await s.request('GET', '/.well-known/jwks.json')).body.keys;
      return keys.find((k: any) => k.kid === kid);
    });
    await t.resolves(verify(AgentCard.fromJSON(r.body)), 'the SDK verifies the sidecar signature');
    t.ok(jwks);
    const anon = await s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json');
    t.equal(anon.status, 401, 'the card is served to authenticated callers only');
  });

  await t.test('peer down: a JSON-RPC error, nothing hangs', async (t) => {
    const r = await s.request('POST', '/a2a/peers/gone', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }), headers: { ...V1, 'x-agent-token': me.token } });
    t.equal(r.body.error.code, -32053);
    t.equal(r.body.error.data.reason, 'connect_failed');
    t.equal(r.body.error.data.verdict.status, 'forwarded', 'the client learns the message was verified but not delivered');
    const unknown = await s.request('POST', '/a2a/peers/nobody', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }), headers: { ...V1, 'x-agent-token': me.token } });
    t.equal(unknown.body.error.code, -32054);
  });

  await t.test('JSON-RPC envelope errors and policy', async (t) => {
    const h = { ...V1, 'x-agent-token': me.token };
    const notJson = await s.request('POST', '/a2a/peers/ledger', { raw: '{nope', headers: { ...h, 'content-type': 'application/json' } });
    t.equal(notJson.status, 400, 'a body that is not JSON is refused by the kernel, problem+json');
    t.equal((await s.request('POST', '/a2a/peers/ledger', { body: [rpc('SendMessage', {})], headers: h })).status, 400, 'so is a batch');
    t.equal((await s.request('POST', '/a2a/peers/ledger', { body: rpc('tasks/unknown', {}), headers: h })).body.error.code, -32601, 'a method A2A does not define is not relayed');
    t.equal((await s.request('POST', '/a2a/peers/ledger', { body: rpc('tasks/pushNotificationConfig/set', {}), headers: h })).body.error.code, -32602, 'a push config naming no task is invalid');
    t.equal((await s.request('POST', '/a2a/peers/ledger', { body: rpc('message/send', { message: { parts: [] } }), headers: h })).body.error.code, -32602);
    const chat = await s.request('POST', '/a2a/peers/ledger', { body: rpc('message/send', { message: wireMessage([{ kind: 'text', text: 'hi' }]) }), headers: h });
    t.equal(chat.body.error.code, -32051, 'plain text is unverifiable and not forwarded by default');
    t.equal(chat.body.error.data.verdict.status, 'unverifiable');
    const other = await s.request('POST', '/a2a/peers/ledger', { body: rpc('message/send', { message: wireMessage([{ data: INVOICE }], { proofgate: { sender_agent_id: 'someone-else' } }) }), headers: h });
    t.equal(other.body.error.data.verdict.details.constraint_id, 'a2a.sender_not_authenticated', 'an agent token speaks as itself only');
    t.equal(other.body.error.data.verdict.details.failure, 'agent_token_mismatch');
    t.equal((await s.request('POST', '/a2a/peers/ledger', { body: rpc('message/send', {}) })).status, 401, 'no credential: 401 before anything');
  });

  await t.test('per-peer metrics', async (t) => {
    const text = await s.kernel.app.metrics.registry.metrics();
    t.match(text, /svc_a2a_proxy_requests_total\{peer="ledger",method="send"\} \d+/);
    t.match(text, /svc_a2a_proxy_verdicts_total\{peer="ledger",decision="block"\} \d+/);
    t.match(text, /svc_a2a_proxy_upstream_errors_total\{peer="gone",kind="connect_failed"\} 1/);
    t.match(text, /svc_a2a_proxy_upstream_seconds_count\{peer="ledger"\} \d+/);
  });
});

t.test('a tampered AgentCard is refused and never cached; a valid one is cached', async (t) => {
  const peer = await startPeer({ tampered: true });
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/.well-known/agent-card.json`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const card = () => s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json', { headers: { 'x-agent-token': me.token } });
  for (let i = 0; i < 2; i++) {
    const r = await card();
    t.equal(r.status, 502, `refused (${i + 1})`);
    t.match(r.body.detail, /signature does not verify/);
  }
  t.equal(peer.cardFetches(), 2, 'a refused card is fetched again, not served from a cache');
  const m = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }), headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(m.body.error.code, -32053, 'a peer known only by its card is unreachable while the card fails');
  t.equal(m.body.error.data.reason, 'card_refused');
  t.equal(peer.received.length, 0, 'nothing was sent to it');

  peer.setTampered(false);
  const fetchesBefore = peer.cardFetches();
  t.equal((await card()).status, 200, 'the card as signed verifies');
  t.equal((await card()).status, 200);
  t.equal(peer.cardFetches(), fetchesBefore + 1, 'a verified card is cached');
});

t.test('a peer that accepts and never answers: a JSON-RPC error at the deadline, no hang', async (t) => {
  const sockets = new Set<import('node:net').Socket>();
  const silent = createServer((req) => req.resume());
  silent.on('connection', (c) => sockets.add(c));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { for (const c of sockets) c.destroy(); silent.close(() => r()); }));
  const port = (silent.address() as import('node:net').AddressInfo).port;
  const s = await proxySidecar({ peers: { mute: `http://127.0.0.1:${port}/rpc` }, proxy: { timeout_ms: 200, connect_timeout_ms: 1000 } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const r = await s.request('POST', '/a2a/peers/mute', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }), headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(r.body.error.code, -32053);
  t.equal(r.body.error.data.reason, 'timeout');
  const huge = await s.request('POST', '/a2a/peers/mute', { raw: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"parts":[{"data":{"claimed_total":1e999,"line_items":[]}}]}}}', headers: { ...V1, 'x-agent-token': me.token, 'content-type': 'application/json' } });
  // the kernel refuses a number beyond double range before any handler (docs/errors.md): never a 500
  t.equal(huge.status, 400, 'a number with no canonical form is refused, not a 500');
  t.equal(huge.body.code, 'number_out_of_range');
});

t.test('a peer configured by its signed card is reached through the card', async (t) => {
  const peer = await startPeer({ signed: true });
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/.well-known/agent-card.json`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }), headers: { ...V1, 'x-agent-token': me.token } });
  t.ok(r.body.result, 'answered');
  t.equal(peer.received.length, 1);
});

t.test('A2A v0.3 method names and part shapes pass to a v0.3-speaking SDK peer', async (t) => {
  const peer = await startPeer({ legacy: true });
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const h = { 'a2a-version': '0.3', 'x-agent-token': me.token };
  const msg = (d: unknown, metadata?: unknown) => ({ kind: 'message', messageId: 'm-03', role: 'user', parts: [{ kind: 'data', data: d }], ...(metadata ? { metadata } : {}) });
  const ok = await s.request('POST', '/a2a/peers/ledger', { body: rpc('message/send', { message: msg(INVOICE) }), headers: h });
  t.ok(ok.body.result, `message/send answered by the peer: ${ok.text.slice(0, 200)}`);
  t.equal(peer.received.length, 1);
  t.ok(peer.received[0].headers['x-proofgate-verdict']);
  const bad = await s.request('POST', '/a2a/peers/ledger', { body: rpc('message/send', { message: msg(WRONG) }), headers: h });
  t.equal(bad.body.error.code, -32050);
  t.equal(peer.received.length, 1, 'the wrong total did not reach the peer');
  const res = await fetch(`${s.url}/a2a/peers/ledger`, {
    method: 'POST',
    headers: { ...h, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(rpc('message/stream', { message: msg(INVOICE, { stream: true }) })),
  });
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const reader = res.body!.getReader();
  let sse = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    sse += Buffer.from(value).toString();
    peer.nextChunk();
  }
  const events = sse.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)).result);
  const texts = events.map((e) => e?.status?.message?.parts?.[0]?.text).filter(Boolean);
  t.same(texts, ['chunk 1', 'chunk 2', 'chunk 3'], 'message/stream relayed in order');
});

t.test('Envoy ext_authz: 200 with the verdict header, 403 with a problem', async (t) => {
  const s = await proxySidecar({ peers: { ledger: 'http://ledger.mesh:8080/' } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const h = { 'x-agent-token': me.token, 'x-a2a-receiver': 'ledger' };
  const ok = await s.request('POST', '/ext-authz/', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }), headers: h });
  t.equal(ok.status, 200, ok.text);
  const v = await verifyVerdict(String(ok.headers.get('x-proofgate-verdict')), { jwksUrl: `${s.url}/.well-known/jwks.json`, payload: { data: INVOICE } });
  t.equal(v.valid, true);
  for (const method of ['ListTasks', 'SubscribeToTask', 'CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set', 'GetExtendedAgentCard']) {
    const r = await s.request('POST', '/ext-authz/', { body: rpc(method, { id: 't-1', taskId: 't-1', url: 'https://127.0.0.1/' }), headers: h });
    t.equal(r.status, 403, `${method}: denied, relayed by the outbound proxy only (no answer is seen here)`);
  }
  const bad = await s.request('POST', '/ext-authz/', { body: rpc('SendMessage', { message: wireMessage([{ data: WRONG }]) }), headers: h });
  t.equal(bad.status, 403);
  t.equal(bad.headers.get('content-type'), 'application/problem+json');
  t.equal(bad.body.verdict.status, 'blocked');
  // what Envoy sends: the original request's Host (fetch cannot set it, node:http can)
  const byHost = await new Promise<number>((resolve, reject) => {
    const body = JSON.stringify(rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }));
    const req = httpRequest(`${s.url}/ext-authz/rpc`, { method: 'POST', headers: { 'x-agent-token': me.token, host: 'ledger.mesh:8080', 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
  t.equal(byHost, 200, 'the receiver is found by the Host of the original request');
  t.equal((await s.request('POST', '/ext-authz/', { body: { not: 'rpc' }, headers: h })).status, 400, 'not A2A JSON-RPC: refused by the kernel (Envoy denies every non-200)');
  t.equal((await s.request('POST', '/ext-authz/', { body: rpc('SendMessage', {}) })).status, 401);
  // claimed numbers are read as written: 2^53+1 is not 2^53, whatever a double makes of both
  const exactBody = (claimed: string) =>
    `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"kind":"message","role":"user","messageId":"m-exact","parts":[{"kind":"data","data":{"claimed_total":${claimed},"line_items":[{"description":"x","amount":9007199254740993,"quantity":1}]}}]}}}`;
  const off = await s.request('POST', '/ext-authz/', { raw: exactBody('9007199254740992'), headers: { ...h, 'content-type': 'application/json' } });
  t.equal(off.status, 403, 'a total one unit off beyond 2^53 is blocked');
  const exact = await s.request('POST', '/ext-authz/', { raw: exactBody('9007199254740993'), headers: { ...h, 'content-type': 'application/json' } });
  t.equal(exact.status, 403, 'the exact total as JSON numbers beyond double precision: no verdict could commit to it');
  t.equal(exact.body.verdict.status, 'unverifiable');
  const asText = await s.request('POST', '/ext-authz/', { raw: exactBody('"9007199254740993"').replace('"amount":9007199254740993', '"amount":"9007199254740993"'), headers: { ...h, 'content-type': 'application/json' } });
  t.equal(asText.status, 200, `as strings the exact total passes: ${asText.text.slice(0, 300)}`);
});

t.test('inbound guard: two sidecars vouch for one message', async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const pubKeyA = createPublicKey(createPrivateKey(KEY_PEM));
  const pubA = { ...pubKeyA.export({ format: 'jwk' }), kid: `did:svc:a2a:sidecar-a#key-${keyFingerprint(pubKeyA)}` };
  const b = await proxySidecar(
    { inbound: { target: `${peer.url}/rpc`, agent_id: 'ledger', trusted_issuers: [{ issuer: 'did:svc:a2a:sidecar-a', jwks: { keys: [{ ...pubA, alg: 'ES256' }] } }] } },
    p256Pem(),
    'sidecar-b',
  );
  t.teardown(() => b.close());
  // B re-signs the card it serves, so A verifies it against B's JWKS
  const a = await proxySidecar({ peers: { ledger: { url: `${b.url}/a2a/inbound`, jwks_url: `${b.url}/.well-known/jwks.json` } } });
  t.teardown(() => a.close());
  const me = await agentToken(a);
  const client = await sdkClient(`${a.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token });
  await client.sendMessage({ message: userMessage([data(INVOICE)]) } as never);
  t.equal(peer.received.length, 1, 'vouched by A, verified again by B, delivered');
  const tokenB = String(peer.received[0].headers['x-proofgate-verdict']);
  const claims = (await jwtVerify(tokenB, createRemoteJWKSet(new URL(`${b.url}/.well-known/jwks.json`)))).payload as any;
  t.match(claims.svc_a2a, { sender: me.agentId, receiver: 'ledger', verdict: 'forwarded', sender_auth: 'agent_token' }, 'B carries the sender A authenticated');
  t.equal(claims.iss, 'did:svc:a2a:sidecar-b');

  const direct = await b.request('POST', '/a2a/inbound', { body: rpc('SendMessage', { message: wireMessage([{ data: INVOICE }]) }) });
  t.equal(direct.body.error.code, -32050, 'without a voucher the sender is not authenticated');
  t.equal(direct.body.error.data.verdict.details.constraint_id, 'a2a.sender_not_authenticated');
  const forged = await b.request('POST', '/a2a/inbound', {
    body: rpc('SendMessage', { message: wireMessage([{ data: { ...INVOICE, claimed_total: '5.00', line_items: [{ amount: '5.00' }] } }]) }),
    headers: { 'x-proofgate-verdict': tokenB },
  });
  t.equal(forged.body.error.code, -32050, "B's own verdict is not from a trusted issuer, and the hash differs");
  t.equal(peer.received.length, 1);
  const card = await b.request('GET', '/.well-known/agent-card.json');
  t.equal(card.status, 200);
  t.same(card.body.supportedInterfaces.map((i: any) => i.url), [`${b.url}/a2a/inbound`], 'inbound mode serves its own card, pointing at itself');
  const uris = (card.body.capabilities?.extensions ?? []).map((e: any) => e.uri);
  t.notOk(uris.includes('https://proofgate.dev/a2a/extensions/verdict/v1'), 'and declares no verdict in answers it does not review');
  t.ok(uris.includes('https://proofgate.dev/a2a/extensions/card-provenance/v1'), 'but where the card came from');
  t.ok(text);
});
