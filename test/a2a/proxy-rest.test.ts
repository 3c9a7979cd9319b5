import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { AgentCard, TaskState } from '@a2a-js/sdk';
import { RestTransportFactory } from '@a2a-js/sdk/client';
import { verifyVerdict } from '../../plugins/a2a/index.js';
import { VERDICT_EXTENSION } from '../../plugins/a2a/proxy/answer-review.js';
import { data, userMessage } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';
import { startTaskPeer } from '../helpers/a2a-task-peer.js';

/**
 * Issue 39: A2A's HTTP+JSON binding through proofgate, driven by the official SDK's REST transport,
 * first directly against the SDK's own REST server, then through proofgate (which reaches the peer
 * over JSON-RPC); and the hostile side: another tenant's task, repeated members, a push URL aimed
 * inside, an oversized body, a wrong invoice, and a peer that lies.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const WRONG = { claimed_total: '9.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const PUSH_URL = 'https://93.184.215.14/hooks/a2a';
const V1 = { 'a2a-version': '1.0' };

const fetchWith =
  (headers: Record<string, string>): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const taskOf = (r: any): any => r?.payload?.value ?? r;

t.test('every A2A method over HTTP+JSON with the SDK REST transport: direct, then through proofgate', async (t) => {
  const peer = await startTaskPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const served = await s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json', { headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(served.status, 200, 'the served card');
  const restIface = served.body.supportedInterfaces.find((i: any) => i.protocolBinding === 'HTTP+JSON');
  t.match(restIface, { url: `${s.url}/a2a/peers/ledger`, protocolVersion: '1.0' }, 'the served card lists the HTTP+JSON interface, at this hop');

  for (const via of ['direct', 'proofgate'] as const) {
    await t.test(via, async (t) => {
      const proxied = via === 'proofgate';
      const card = AgentCard.fromJSON(served.body);
      const rest = await new RestTransportFactory({ fetchImpl: fetchWith(proxied ? { ...V1, 'x-agent-token': me.token } : V1) }).create(proxied ? restIface.url : `${peer.url}/rest`, card);

      const before = peer.received.length;
      const sent = taskOf(await rest.sendMessage({ message: userMessage([data(INVOICE)]) } as never));
      t.ok(sent.id, `message:send: a task (${sent.id})`);
      t.equal(sent.artifacts?.[0]?.parts?.[0]?.content?.value, 'booked', 'with the agent output');
      const meta = sent.metadata?.[VERDICT_EXTENSION];
      if (proxied) {
        t.equal(peer.received[before]?.body?.method, 'SendMessage', 'the peer was reached over JSON-RPC');
        t.equal(meta?.status, 'forwarded', 'the verdict is in the task metadata');
        const v = await verifyVerdict(meta.verdicts[0], { jwksUrl: `${s.url}/.well-known/jwks.json`, payload: { data: INVOICE } });
        t.equal(v.valid, true, 'and verifies against the JWKS');
      } else t.notOk(meta, 'direct: no verdict');

      t.equal(((await rest.getTask({ id: sent.id, historyLength: 1 } as never)) as any).id, sent.id, 'GET tasks/{id}');
      const listed = (await rest.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', pageSize: 50 } as never)) as any;
      t.ok(listed.tasks.some((x: any) => x.id === sent.id), 'GET tasks lists it');

      const stream = rest.sendMessageStream({ message: userMessage([data(INVOICE)], { hold: true }) } as never);
      const first = await stream.next();
      const held = taskOf(first.value);
      t.ok(held.id, 'message:stream: the task comes first');
      if (proxied) t.ok(held.metadata?.[VERDICT_EXTENSION]?.verdicts?.length, 'with the verdict in its metadata');
      const sub = rest.resubscribeTask({ id: held.id } as never);
      const subFirst = await sub.next();
      t.equal(taskOf(subFirst.value as any)?.id, held.id, 'tasks/{id}:subscribe joins the task');
      const again = collect({ [Symbol.asyncIterator]: () => sub });
      const cancelled = (await rest.cancelTask({ id: held.id } as never)) as any;
      t.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED, 'tasks/{id}:cancel');
      t.ok((await again).length >= 1, 'the subscription runs to the end');
      await stream.return?.(undefined);

      const cfg = (await rest.createTaskPushNotificationConfig({ tenant: '', id: 'cfg-1', taskId: sent.id, url: PUSH_URL, token: 'secret', authentication: undefined } as never)) as any;
      t.equal(cfg.url, PUSH_URL, 'POST pushNotificationConfigs');
      t.equal(((await rest.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-1' } as never)) as any).id, 'cfg-1', 'GET pushNotificationConfigs/{id}');
      t.equal(((await rest.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id } as never)) as any).configs?.length, 1, 'GET pushNotificationConfigs');
      await t.resolves(rest.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-1' } as never), 'DELETE pushNotificationConfigs/{id}');

      const ext = (await rest.getExtendedAgentCard({ tenant: '' } as never)) as any;
      t.ok(ext.skills.some((k: any) => k.id === 'refund'), 'GET extendedAgentCard');
      if (proxied) t.ok(ext.supportedInterfaces.every((i: any) => i.url === `${s.url}/a2a/peers/ledger`), 'the extended card names this hop only');

      await t.rejects(rest.getTask({ id: 'no-such-task' } as never), { name: 'TaskNotFoundError', statusCode: 404 }, 'an unknown task: the SDK reads TaskNotFoundError');
    });
  }
});

t.test('hostile requests over HTTP+JSON meet the JSON-RPC guards', async (t) => {
  const peer = await startTaskPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ max_payload_size_bytes: 64 * 1024, peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const other = await agentToken(s);
  const base = `${s.url}/a2a/peers/ledger`;
  const call = (token: string, method: string, path: string, body?: string) =>
    fetch(`${base}${path}`, { method, headers: { ...V1, 'x-agent-token': token, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) });
  const msg = (invoice: unknown, extra: Record<string, unknown> = {}) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data: invoice }], ...extra });

  const sent = (await (await call(me.token, 'POST', '/message:send', JSON.stringify({ message: msg(INVOICE) }))).json()) as any;
  const taskId: string = sent.task.id;
  t.ok(taskId, 'a task of mine');

  const before = peer.received.length;
  for (const [method, path, body] of [
    ['GET', `/tasks/${taskId}`],
    ['POST', `/tasks/${taskId}:cancel`],
    ['POST', `/tasks/${taskId}:subscribe`],
    ['GET', `/tasks/${taskId}:subscribe`],
    ['GET', `/tasks/${taskId}/pushNotificationConfigs`],
    ['GET', `/tasks/${taskId}/pushNotificationConfigs/cfg`],
    ['DELETE', `/tasks/${taskId}/pushNotificationConfigs/cfg`],
    ['POST', `/tasks/${taskId}/pushNotificationConfigs`, JSON.stringify({ url: PUSH_URL })],
    ['POST', '/message:send', JSON.stringify({ message: msg(INVOICE, { taskId }) })],
  ] as Array<[string, string, string?]>) {
    const r = await call(other.token, method, path, body);
    const b = (await r.json()) as any;
    t.equal(r.status, 404, `another tenant: ${method} ${path.replace(taskId, '{id}')} is 404`);
    t.equal(b.error?.details?.[0]?.reason, 'TASK_NOT_FOUND', 'as TaskNotFound');
  }
  const viaV1 = await fetch(`${s.url}/v1/a2a/peers/ledger/tasks/${taskId}`, { headers: { ...V1, 'x-agent-token': other.token } });
  t.equal(viaV1.status, 404, 'and under the /v1 prefix alike');
  // my task in the path, another's id in the body: the path is what is read and checked
  const mineOther = await call(other.token, 'POST', `/tasks/other-${taskId}/pushNotificationConfigs`, JSON.stringify({ taskId, url: PUSH_URL }));
  t.equal(mineOther.status, 404, 'a taskId in the body does not stand in for the path');
  t.equal(peer.received.length, before, 'none of it reached the peer');

  const dup = await call(me.token, 'POST', '/message:send', `{"message":${JSON.stringify(msg(INVOICE))},"message":${JSON.stringify(msg(WRONG))}}`);
  t.equal(dup.status, 400, 'a repeated member is refused');
  t.equal(((await dup.json()) as any).error?.status, 'INVALID_ARGUMENT');
  const dupQuery = await call(me.token, 'GET', '/tasks?pageSize=1&pageSize=100');
  t.equal(dupQuery.status, 400, 'so is a repeated query member');

  for (const url of ['https://127.0.0.1/hook', 'http://93.184.215.14/hook', 'https://[::1]/hook']) {
    const r = await call(me.token, 'POST', `/tasks/${taskId}/pushNotificationConfigs`, JSON.stringify({ id: 'x', url }));
    const b = (await r.json()) as any;
    t.equal(r.status, 403, `push URL ${url} refused`);
    t.equal(b.error?.details?.[0]?.reason, 'PUSH_URL_REFUSED');
  }
  t.equal(peer.received.length, before, 'no refused push URL reached the peer');

  const huge = await call(me.token, 'POST', '/message:send', JSON.stringify({ message: msg({ ...INVOICE, pad: 'x'.repeat(100 * 1024) }) }));
  t.equal(huge.status, 413, 'an oversized body is 413');

  const wrong = await call(me.token, 'POST', '/message:send', JSON.stringify({ message: msg(WRONG) }));
  const wb = (await wrong.json()) as any;
  t.equal(wrong.status, 403, 'a wrong invoice is blocked');
  t.match(wb.error, { status: 'PERMISSION_DENIED', details: [{ reason: 'MESSAGE_BLOCKED', domain: 'proofgate.dev' }, { data: { verdict: { status: String } } }] }, 'with the verdict in the details');
  t.equal(peer.received.length, before, 'and nothing was sent');

  const noAuth = await fetch(`${base}/tasks/${taskId}`, { headers: V1 });
  t.equal(noAuth.status, 401, 'a request without a credential is refused');
});

/** A JSON-RPC peer that answers whatever the test scripts */
async function lyingPeer(answer: (method: string, id: unknown) => { sse?: unknown[]; json?: unknown }) {
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
      } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(a.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

t.test('a lying peer behind the REST binding: its answers are reviewed as JSON-RPC ones are', async (t) => {
  let next: (method: string, id: unknown) => { sse?: unknown[]; json?: unknown } = () => ({ json: {} });
  const peer = await lyingPeer((m, id) => next(m, id));
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: `${peer.url}/rpc` } });
  t.teardown(() => s.close());
  const a = await agentToken(s);
  const b = await agentToken(s);
  const send = (token: string, path = '/message:send') =>
    fetch(`${s.url}/a2a/peers/ledger${path}`, { method: 'POST', headers: { ...V1, 'x-agent-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data: INVOICE }] } }) });
  const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, contextId: `c-${id}`, status: { state: 'TASK_STATE_COMPLETED' }, ...extra });

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-a') } } });
  t.equal((await send(a.token)).status, 200, 'A creates task-a');
  const stolen = await send(b.token);
  const sb = (await stolen.json()) as any;
  t.equal(stolen.status, 502, "B is not handed A's task");
  t.equal(sb.error?.details?.[0]?.reason, 'ANSWER_WITHHELD');
  t.notMatch(JSON.stringify(sb), /task-a/, 'nothing of it');

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-c', { artifacts: [{ artifactId: 'x', parts: [{ data: WRONG }] }] }) } } });
  t.equal((await send(a.token)).status, 502, 'agent output with a wrong total is withheld');

  next = (_m, id) => ({ json: { jsonrpc: '2.0', id, result: { task: task('task-f', { metadata: { [VERDICT_EXTENSION]: { status: 'verified', verdicts: ['forged'] } } }) } } });
  const forged = (await (await send(a.token)).json()) as any;
  t.not(forged.task.metadata[VERDICT_EXTENSION].verdicts[0], 'forged', "the peer's own verdict entry is replaced by this hop's");

  next = (_m, id) => ({ sse: [{ jsonrpc: '2.0', id, result: { task: task('task-e') } }, { jsonrpc: '2.0', id, result: { artifactUpdate: { taskId: 'task-e', artifact: { artifactId: 'x', parts: [{ data: WRONG }] } } } }] });
  const streamed = await send(a.token, '/message:stream');
  t.equal(streamed.headers.get('content-type'), 'text/event-stream');
  const text = await streamed.text();
  t.match(text, /^data: \{"task":/, 'the first event is the bare result, as REST streams carry it');
  t.match(text, /event: error\ndata: \{"error":\{"code":502,"status":"INTERNAL","message":"Answer withheld/, 'the wrong artifact ends the stream with an error event');
});
