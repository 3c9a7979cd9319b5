import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { VERDICT_EXTENSION } from '../../plugins/a2a/proxy/answer-review.js';
import { data, sdkClient, userMessage } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';
import { startTaskPeer } from '../helpers/a2a-task-peer.js';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { keyFingerprint } from '../../plugins/a2a/index.js';
import { KEY_PEM, p256Pem } from '../helpers/a2a.js';
import { startPeer } from '../helpers/a2a-peer.js';

/**
 * Issue 39, the hostile side of the task methods: another tenant's (or another agent's) task ids,
 * push-notification URLs aimed inside, and a peer that lies in its answers.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const message = (extra: Record<string, unknown> = {}) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data: INVOICE }], ...extra });
const V1 = { 'a2a-version': '1.0' };

t.test('tasks are the creator’s: another tenant or agent gets not-found, and nothing reaches the peer', async (t) => {
  const peer = await startTaskPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const other = await agentToken(s);
  const colleague = await s.request('POST', '/agents/register', { apiKey: me.key, body: { name: 'seller' } });
  const mine = await sdkClient(`${s.url}/a2a/peers/ledger/`, { 'x-agent-token': me.token });
  const sent = (await mine.sendMessage({ message: userMessage([data(INVOICE)]) } as never)) as any;
  const taskId: string = (sent.payload?.value ?? sent).id;
  t.ok(taskId, 'a task of mine');

  const attempts: Array<[string, unknown]> = [
    ['GetTask', { id: taskId }],
    ['tasks/get', { id: taskId }],
    ['CancelTask', { id: taskId }],
    ['tasks/cancel', { id: taskId }],
    ['SubscribeToTask', { id: taskId }],
    ['tasks/resubscribe', { id: taskId }],
    ['CreateTaskPushNotificationConfig', { taskId, url: 'https://93.184.215.14/hook' }],
    ['tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: 'https://93.184.215.14/hook' } }],
    ['GetTaskPushNotificationConfig', { taskId, id: 'cfg' }],
    ['tasks/pushNotificationConfig/get', { id: taskId }],
    ['ListTaskPushNotificationConfigs', { taskId }],
    ['tasks/pushNotificationConfig/list', { id: taskId }],
    ['DeleteTaskPushNotificationConfig', { taskId, id: 'cfg' }],
    ['tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'cfg' }],
    ['SendMessage', { message: message({ taskId }) }],
    ['SendMessage', { message: message({ referenceTaskIds: [taskId] }) }],
    // the id of another's task hidden in the member the other version reads
    ['GetTask', { id: 'nope', taskId }],
  ];
  for (const [who, token] of [
    ['another tenant', other.token],
    ['another agent of my organisation', colleague.body.agent_token as string],
  ] as const) {
    for (const [method, params] of attempts) {
      const before = peer.received.length;
      const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc(method, params), headers: { ...V1, 'x-agent-token': token } });
      t.equal(r.body?.error?.code, -32001, `${who}: ${method} ${JSON.stringify(params).slice(0, 60)} is not found`);
      t.equal(peer.received.length, before, `${who}: ${method}: nothing reached the peer`);
    }
    const listed = await s.request('POST', '/a2a/peers/ledger', { body: rpc('ListTasks', {}), headers: { ...V1, 'x-agent-token': token } });
    t.notOk(listed.body.result.tasks.some((x: any) => x.id === taskId), `${who}: ListTasks does not show my task`);
    t.equal(listed.body.result.totalSize ?? 0, listed.body.result.tasks.length, `${who}: nor counts it`);
  }
  const contextId: string = (sent.payload?.value ?? sent).contextId;
  t.ok(contextId, 'and its context');
  for (const [who, token] of [
    ['another tenant', other.token],
    ['another agent of my organisation', colleague.body.agent_token as string],
  ] as const) {
    const before = peer.received.length;
    const joined = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message({ contextId }) }), headers: { ...V1, 'x-agent-token': token } });
    t.equal(joined.body?.error?.code, -32001, `${who}: a message into my conversation is refused`);
    t.equal(peer.received.length, before, `${who}: nothing reached the peer`);
  }
  const mineAgain = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message({ contextId }) }), headers: { ...V1, 'x-agent-token': me.token } });
  t.ok(mineAgain.body.result, 'I continue my own conversation');
  const fresh = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message({ contextId: 'a-context-of-my-own' }) }), headers: { ...V1, 'x-agent-token': other.token } });
  t.ok(fresh.body.result, 'a context nobody started is anyone’s to start');
  const unknown = await s.request('POST', '/a2a/peers/ledger', { body: rpc('GetTask', { id: 'never-created' }), headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(unknown.body.error.code, -32001, 'a task never seen is not found, the same answer');
  const own = await s.request('POST', '/a2a/peers/ledger', { body: rpc('GetTask', { id: taskId }), headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(own.body.result.id, taskId, 'the creator reads it');
  const noId = await s.request('POST', '/a2a/peers/ledger', { body: rpc('GetTask', { id: 5 }), headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(noId.body.error.code, -32602, 'a task id that is not a string is invalid params');
});

t.test('push-notification URLs are checked before they reach the peer', async (t) => {
  const peer = await startTaskPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const h = { ...V1, 'x-agent-token': me.token };
  const sent = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message() }), headers: h });
  const taskId = sent.body.result.task.id;
  const refused: Array<[string, Record<string, unknown>]> = [
    ['http://', { url: 'http://93.184.215.14/hook' }],
    ['loopback', { url: 'https://127.0.0.1/hook' }],
    ['cloud metadata', { url: 'https://169.254.169.254/latest/meta-data/' }],
    ['an IPv4-mapped loopback', { url: 'https://[::ffff:127.0.0.1]/hook' }],
    ['a private range', { url: 'https://10.0.0.7/hook' }],
    ['a name that resolves to loopback', { url: 'https://localhost/hook' }],
    ['credentials in the URL', { url: 'https://user:pw@93.184.215.14/hook' }],
    ['not a URL', { url: 'hook' }],
    ['a public v1.0 url beside a loopback v0.3 config', { url: 'https://93.184.215.14/hook', pushNotificationConfig: { url: 'https://127.0.0.1/hook' } }],
  ];
  for (const [name, cfg] of refused) {
    const before = peer.received.length;
    const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc('CreateTaskPushNotificationConfig', { taskId, id: 'c', ...cfg }), headers: h });
    t.equal(r.body?.error?.code, -32056, `${name}: refused (${r.body?.error?.message})`);
    t.equal(peer.received.length, before, `${name}: nothing reached the peer`);
    const legacy = await s.request('POST', '/a2a/peers/ledger', { body: rpc('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: cfg.pushNotificationConfig ?? cfg }), headers: h });
    t.equal(legacy.body?.error?.code, -32056, `${name}: refused under the v0.3 name too`);
  }
  const ok = await s.request('POST', '/a2a/peers/ledger', { body: rpc('CreateTaskPushNotificationConfig', { taskId, id: 'c', url: 'https://93.184.215.14/hook' }), headers: h });
  t.equal(ok.body.result?.url, 'https://93.184.215.14/hook', 'a public https URL is relayed');
});

/** A peer that answers what the test scripts for each method, whatever it is asked. */
async function lyingPeer(answer: (method: string, id: unknown) => { sse?: unknown[]; json?: unknown; raw?: string }) {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const m = JSON.parse(body);
      const a = answer(m.method, m.id);
      if (a.sse) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of a.sse) res.write(`data: ${JSON.stringify(e)}\n\n`);
        res.end();
      } else res.writeHead(200, { 'content-type': 'application/json' }).end(a.raw ?? JSON.stringify(a.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

t.test('a lying peer: other callers’ tasks withheld, forged verdicts dropped, listings filtered', async (t) => {
  let next: (method: string, id: unknown) => { sse?: unknown[]; json?: unknown; raw?: string } = () => ({ json: {} });
  const peer = await lyingPeer((m, id) => next(m, id));
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` } });
  t.teardown(() => s.close());
  const a = await agentToken(s);
  const b = await agentToken(s);
  const task = (id: string, metadata?: unknown) => ({ id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, ...(metadata ? { metadata } : {}) });
  const call = (token: string, method: string, params: unknown) => s.request('POST', '/a2a/peers/ledger', { body: rpc(method, params), headers: { ...V1, 'x-agent-token': token } });

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-a') } } });
  t.ok((await call(a.token, 'SendMessage', { message: message() })).body.result.task.id, 'A creates task-a');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-a') } } });
  const stolen = await call(b.token, 'SendMessage', { message: message() });
  t.match(stolen.body.error, { code: -32055, data: { reason: /another caller/ } }, "B is not handed A's task");
  t.notMatch(stolen.text, /task-a/, 'nothing of it');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { message: { messageId: 'x', role: 'ROLE_AGENT', taskId: 'task-a', parts: [{ text: 'hi' }] } } } });
  t.equal((await call(b.token, 'SendMessage', { message: message() })).body.error.code, -32055, "nor a message inside A's task");
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-b') } } });
  t.ok((await call(b.token, 'SendMessage', { message: message() })).body.result, 'B creates task-b');

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: task('task-b') } });
  t.equal((await call(a.token, 'GetTask', { id: 'task-a' })).body.error.code, -32055, "A asks for task-a, the peer answers B's task-b: withheld");
  const forged = { [VERDICT_EXTENSION]: { status: 'forwarded', verdicts: ['forged'] }, kept: 1 };
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: task('task-a', forged) } });
  const got = await call(a.token, 'GetTask', { id: 'task-a' });
  t.same(got.body.result.metadata, { kept: 1 }, "a verdict the peer wrote under proofgate's extension is dropped");

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { tasks: [task('task-a'), task('task-b'), task('task-z')], nextPageToken: '', pageSize: 50, totalSize: 3 } } });
  const listed = await call(a.token, 'ListTasks', {});
  t.same(
    listed.body.result.tasks.map((x: any) => x.id),
    ['task-a'],
    'ListTasks: only the caller’s',
  );
  t.equal(listed.body.result.totalSize, 1, 'and counted as such');

  next = (_m, id) => ({ sse: [{ jsonrpc: '2.0', id, result: { task: task('task-a2') } }, { jsonrpc: '2.0', id, result: { statusUpdate: { taskId: 'task-b', status: { state: 'TASK_STATE_WORKING' } } } }, { jsonrpc: '2.0', id, result: { statusUpdate: { taskId: 'task-a2', status: { state: 'TASK_STATE_COMPLETED' } } } }] });
  const r = await fetch(`${s.url}/a2a/peers/ledger`, { method: 'POST', headers: { ...V1, 'x-agent-token': a.token, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(rpc('SendStreamingMessage', { message: message() })) });
  const events = [...(await r.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
  t.equal(events.length, 2, 'the stream ends at the event that names another caller’s task');
  t.ok(events[0].result.task.metadata[VERDICT_EXTENSION], 'the first event is relayed with the verdict');
  t.equal(events[1].error.code, -32055, 'the second is withheld');

  // agent output is verified like a message: a wrong invoice in an artifact never reaches the caller
  const WRONG = { claimed_total: '50.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
  const withArtifact = (id: string, inv: unknown) => ({ ...task(id), artifacts: [{ artifactId: 'x', parts: [{ data: inv }] }] });
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: withArtifact('task-c', WRONG) } } });
  const wrong = await call(a.token, 'SendMessage', { message: message() });
  t.match(wrong.body.error, { code: -32055, data: { reason: /agent output was blocked/, verdict: { status: 'blocked', engine_used: 'finance_guard' } } }, 'a wrong total in an artifact: withheld, with the verdict');
  t.notOk(wrong.body.result, 'no result: the artifact is not handed on (the verdict says what was wrong)');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: { ...task('task-c2'), artifacts: [{ artifactId: 'x', parts: [{ data: WRONG }], metadata: { proofgate: { payload_type: 'general' } } }] } } } });
  t.equal((await call(a.token, 'SendMessage', { message: message() })).body.error?.code, -32055, 'the peer cannot name its output `general` to go unverified');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ data: WRONG }] } } } });
  t.equal((await call(a.token, 'SendMessage', { message: message() })).body.error?.code, -32055, 'nor label it a user message');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: { ...task('task-c3'), history: [{ messageId: 'h', role: 'ROLE_USER', parts: [{ data: WRONG }] }] } } } });
  t.equal((await call(a.token, 'SendMessage', { message: message() })).body.error?.code, -32055, 'nor slip it into the history');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-c4'), kind: 'message', messageId: 'v03', role: 'agent', parts: [{ kind: 'data', data: WRONG }] } } });
  t.equal((await call(a.token, 'SendMessage', { message: message() })).body.error?.code, -32055, 'nor hide it in the v0.3 reading of a hybrid answer');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: withArtifact('task-d', INVOICE) } } });
  const right = await call(a.token, 'SendMessage', { message: message() });
  const output = right.body.result.task.metadata[VERDICT_EXTENSION].output;
  t.equal(output?.[0]?.status, 'forwarded', 'a correct one is relayed with its own verdict beside the request’s');
  t.ok(output[0].verdicts[0], 'signed');
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'hello', data: INVOICE }] } } } });
  t.equal((await call(a.token, 'SendMessage', { message: message() })).body.error.code, -32055, 'agent output readable two ways is withheld');
  next = (_m, id) => ({ sse: [{ jsonrpc: '2.0', id, result: { task: task('task-e') } }, { jsonrpc: '2.0', id, result: { artifactUpdate: { taskId: 'task-e', artifact: { artifactId: 'x', parts: [{ data: WRONG }] } } } }] });
  const streamed = await fetch(`${s.url}/a2a/peers/ledger`, { method: 'POST', headers: { ...V1, 'x-agent-token': a.token, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(rpc('SendStreamingMessage', { message: message() })) });
  const streamedEvents = [...(await streamed.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
  t.equal(streamedEvents.at(-1).error.code, -32055, 'a streamed artifact update with a wrong total ends the stream, withheld');

  // a large answer is read in the worker pool, as strictly as a small one
  const long = 'x'.repeat(200 * 1024);
  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { message: { messageId: 'big', role: 'ROLE_AGENT', parts: [{ text: long }] } } } });
  const big = await call(a.token, 'SendMessage', { message: message() });
  t.equal(big.body.result?.message?.parts?.[0]?.text?.length, long.length, 'a 200 KiB answer is relayed whole');
  t.ok(big.body.result.message.metadata[VERDICT_EXTENSION], 'reviewed');
  const raw = `{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"big","role":"ROLE_AGENT","parts":[{"text":"${long}"}],"messageId":"again"}}}`;
  next = () => ({ raw });
  const dup = await call(a.token, 'SendMessage', { message: message() });
  t.match(dup.body.error, { code: -32055, data: { reason: /twice/ } }, 'a large answer naming a member twice is withheld');

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { name: 'ledger', supportedInterfaces: [{ url: 'http://evil.example/rpc', protocolBinding: 'JSONRPC' }], signatures: [{ protected: 'e30', signature: 'AAAA' }] } } });
  const ext = await call(a.token, 'GetExtendedAgentCard', {});
  t.equal(ext.body.error.code, -32055, 'an extended card with a signature nobody can check is withheld');
  t.notMatch(ext.text, /evil\.example/);
});

t.test('a card whose signature covers only its 1.0 reading is taken as that reading', async (t) => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { generateAgentCardSignature } = await import('@a2a-js/sdk');
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let served: Record<string, unknown> = {};
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/jwks.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [{ ...keys.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' }] }));
    if (req.url === '/.well-known/agent-card.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = generateAgentCardSignature(keys.privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE' });
  // a v0.3 card: the SDK signs its 1.0 reading, in which `url` does not exist
  served = (await sign({ name: 'legacy', description: 'd', version: '1', url: `${base}/rpc`, preferredTransport: 'JSONRPC', protocolVersion: '0.3.0', capabilities: {}, skills: [], signatures: [] } as never)) as never;
  const s = await proxySidecar({ peers: { ledger: { url: `${base}/.well-known/agent-card.json`, jwks_url: `${base}/jwks.json` } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message() }), headers: { ...V1, 'x-agent-token': me.token } });
  t.match(r.body.error, { code: -32053, data: { reason: 'card_refused' } }, 'its signature holds, but not for the `url` beside it: no endpoint is believed');
  t.notOk(hits.includes('/rpc'), 'nothing was sent to the unsigned url');
  const card = await s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json', { headers: { 'x-agent-token': me.token } });
  t.equal(card.status, 502, 'nor is the card served');
});

t.test("a verdict on a peer's answer does not vouch for a message at another sidecar's inbound guard", async (t) => {
  const INV = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
  const liar = await lyingPeer((_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: { id: 'task-v', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'x', parts: [{ data: INV }] }] } } } }));
  t.teardown(() => liar.close());
  const a = await proxySidecar({ peers: { ledger: `${liar.url}/rpc` } });
  t.teardown(() => a.close());
  const me = await agentToken(a);
  const r = await a.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message() }), headers: { ...V1, 'x-agent-token': me.token } });
  const outputJwt = r.body.result.task.metadata[VERDICT_EXTENSION].output[0].verdicts[0];
  t.ok(outputJwt, "A's verdict on the peer's output, addressed to my agent");
  const target = await startPeer();
  t.teardown(() => target.close());
  const pub = createPublicKey(createPrivateKey(KEY_PEM));
  const b = await proxySidecar(
    { inbound: { target: `${target.url}/rpc`, agent_id: me.agentId, trusted_issuers: [{ issuer: 'did:svc:a2a:sidecar-a', jwks: { keys: [{ ...pub.export({ format: 'jwk' }), kid: `did:svc:a2a:sidecar-a#key-${keyFingerprint(pub)}`, alg: 'ES256' }] } }] } },
    p256Pem(),
    'sidecar-b',
  );
  t.teardown(() => b.close());
  const posed = await b.request('POST', '/a2a/inbound', { body: rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: INV }] } }), headers: { ...V1, 'x-proofgate-verdict': outputJwt } });
  t.equal(posed.body.error?.code, -32050, 'presented as a voucher for "ledger", it authenticates nobody');
  t.equal(posed.body.error?.data?.verdict?.details?.constraint_id, 'a2a.sender_not_authenticated');
  t.equal(target.received.length, 0, 'nothing was delivered');
});

t.test('task records expire: not found after the TTL, claimable anew, pruned in expiry order', async (t) => {
  const { LmdbStore } = await import('../../core/store/lmdb.js');
  const { tempDir } = await import('../helpers/temp-dir.js');
  const { TaskOwners, PROXY_TASKS_COLLECTION, PROXY_TASKS_EXPIRY_COLLECTION } = await import('../../plugins/a2a/proxy/tasks.js');
  const store = new LmdbStore(tempDir(t, 'a2a-tasks-'));
  t.teardown(() => store.close());
  let now = 1_000_000;
  const owners = new TaskOwners(store, 100, () => now);
  const alice = { org: 'o1', sender: 'alice' };
  const bob = { org: 'o2', sender: 'bob' };
  const isAlice = (h: { org: string; sender: string }) => h.org === 'o1' && h.sender === 'alice';
  t.equal(await owners.claim('ledger', 't1', alice, isAlice), true, 'first seen: claimed');
  t.equal(await owners.claim('ledger', 't1', alice, isAlice), true, 'seen again by its owner');
  t.equal(await owners.claim('ledger', 't1', bob, () => false), false, 'handed to another caller: refused');
  t.same(await owners.get('ledger', 't1'), alice);
  t.equal(await owners.get('other-peer', 't1'), undefined, 'records are per peer');
  await owners.claim('ledger', 't2', alice, isAlice);
  now += 99;
  t.equal(await owners.prune(), 0, 'nothing expired yet');
  now += 1;
  t.equal(await owners.get('ledger', 't1'), undefined, 'expired: not found (fail closed)');
  t.equal(await owners.claim('ledger', 't1', bob, () => false), true, 'an expired record is replaced, as if the task were new');
  t.equal(await owners.prune(), 2, 'both old index entries read');
  t.same(await owners.get('ledger', 't1'), bob, "the re-claimed record stays (its exp is later)");
  t.equal(await store.collection(PROXY_TASKS_COLLECTION).count(), 1, 't2 is gone');
  t.equal(await store.collection(PROXY_TASKS_EXPIRY_COLLECTION).count(), 1);
  now += 100;
  t.equal(await owners.prune(1), 1);
  t.equal(await store.collection(PROXY_TASKS_COLLECTION).count(), 0);
});
