import t from 'tap';
import { AgentCard, TaskState } from '@a2a-js/sdk';
import { JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { verifyVerdict } from '../../plugins/a2a/index.js';
import { VERDICT_EXTENSION } from '../../plugins/a2a/proxy/answer-review.js';
import { data, userMessage } from '../helpers/a2a-peer.js';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';
import { startTaskPeer } from '../helpers/a2a-task-peer.js';

/**
 * Issue 39: a peer whose card declares only A2A 1.0 HTTP+JSON, built from the official SDK's REST
 * server. The SDK's clients (REST and JSON-RPC transports) through proofgate get what the REST
 * client gets direct, with the verdict; proofgate speaks REST to the peer, never JSON-RPC.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const WRONG = { claimed_total: '9.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const PUSH_URL = 'https://93.184.215.14/hooks/a2a';
const V1 = { 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

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

t.test('a REST-only SDK peer through proofgate, with the SDK REST and JSON-RPC clients', async (t) => {
  const peer = await startTaskPeer({ restOnly: true });
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/.well-known/agent-card.json`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const served = await s.request('GET', '/a2a/peers/ledger/.well-known/agent-card.json', { headers: { ...V1, 'x-agent-token': me.token } });
  t.equal(served.status, 200, `the served card (${served.text.slice(0, 200)})`);
  const card = AgentCard.fromJSON(served.body);
  const at = (b: string) => served.body.supportedInterfaces.find((i: any) => i.protocolBinding === b)?.url;
  t.equal(at('JSONRPC'), `${s.url}/a2a/peers/ledger`, 'the served card offers JSON-RPC at this hop');
  t.equal(at('HTTP+JSON'), `${s.url}/a2a/peers/ledger`, 'and HTTP+JSON');

  for (const via of ['direct', 'proofgate REST', 'proofgate JSON-RPC'] as const) {
    await t.test(via, async (t) => {
      const proxied = via !== 'direct';
      const fetchImpl = fetchWith(proxied ? { ...V1, 'x-agent-token': me.token } : V1);
      const c =
        via === 'proofgate JSON-RPC'
          ? await new JsonRpcTransportFactory({ fetchImpl }).create(at('JSONRPC'), card)
          : await new RestTransportFactory({ fetchImpl }).create(proxied ? at('HTTP+JSON') : `${peer.url}/rest`, card);
      const before = peer.restReceived.length;
      const sent = taskOf(await c.sendMessage({ message: userMessage([data(INVOICE)]) } as never));
      t.ok(sent.id, `message:send: a task (${sent.id})`);
      t.equal(sent.artifacts?.[0]?.parts?.[0]?.content?.value, 'booked', 'with the agent output');
      const meta = sent.metadata?.[VERDICT_EXTENSION];
      const reached = peer.restReceived[before];
      t.match(reached, { method: 'POST', path: '/message:send' }, 'the peer was reached over HTTP+JSON');
      if (proxied) {
        t.equal(reached.headers['a2a-version'], '1.0', 'as A2A 1.0');
        t.ok(reached.headers['x-proofgate-verdict'], 'with the verdict header');
        t.equal(meta?.status, 'forwarded', 'the verdict is in the task metadata');
        const v = await verifyVerdict(meta.verdicts[0], { jwksUrl: `${s.url}/.well-known/jwks.json`, payload: { data: INVOICE } });
        t.equal(v.valid, true, 'and verifies against the JWKS');
      } else t.notOk(meta, 'direct: no verdict');

      t.equal(((await c.getTask({ id: sent.id, historyLength: 1 } as never)) as any).id, sent.id, 'GetTask');
      t.match(peer.restReceived.at(-1), { method: 'GET', path: `/tasks/${sent.id}?historyLength=1` });
      const listed = (await c.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', pageSize: 50 } as never)) as any;
      t.ok(listed.tasks.some((x: any) => x.id === sent.id), 'ListTasks lists it');

      const stream = c.sendMessageStream({ message: userMessage([data(INVOICE)], { hold: true }) } as never);
      const first = await stream.next();
      const held = taskOf(first.value);
      t.ok(held.id, 'message:stream: the task comes first');
      if (proxied) t.ok(held.metadata?.[VERDICT_EXTENSION]?.verdicts?.length, 'with the verdict in its metadata');
      const sub = c.resubscribeTask({ id: held.id } as never);
      const subFirst = await sub.next();
      t.equal(taskOf(subFirst.value as any)?.id, held.id, 'SubscribeToTask joins the task');
      const again = collect({ [Symbol.asyncIterator]: () => sub });
      const cancelled = (await c.cancelTask({ id: held.id } as never)) as any;
      t.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED, 'CancelTask');
      t.ok((await again).length >= 1, 'the subscription runs to the end');
      await stream.return?.(undefined);

      const cfg = (await c.createTaskPushNotificationConfig({ tenant: '', id: 'cfg-1', taskId: sent.id, url: PUSH_URL, token: 'secret', authentication: undefined } as never)) as any;
      t.equal(cfg.url, PUSH_URL, 'CreateTaskPushNotificationConfig');
      t.equal(((await c.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-1' } as never)) as any).id, 'cfg-1', 'GetTaskPushNotificationConfig');
      t.equal(((await c.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id } as never)) as any).configs?.length, 1, 'ListTaskPushNotificationConfigs');
      await t.resolves(c.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'cfg-1' } as never), 'DeleteTaskPushNotificationConfig');
      t.match(peer.restReceived.at(-1), { method: 'DELETE', path: `/tasks/${sent.id}/pushNotificationConfigs/cfg-1` });

      const ext = (await c.getExtendedAgentCard({ tenant: '' } as never)) as any;
      t.ok(ext.skills.some((k: any) => k.id === 'refund'), 'GetExtendedAgentCard');
      if (proxied) t.ok(ext.supportedInterfaces.every((i: any) => i.url === `${s.url}/a2a/peers/ledger`), 'the extended card names this hop only');

      if (proxied) await t.rejects(c.getTask({ id: 'no-such-task' } as never), 'an unknown task is refused');
      else await t.rejects(c.getTask({ id: 'no-such-task' } as never), { name: 'TaskNotFoundError' }, 'an unknown task: TaskNotFoundError');
    });
  }
  t.equal(peer.received.length, 0, 'nothing ever went to the peer as JSON-RPC');

  await t.test('the peer’s own errors come back as the JSON-RPC error they name', async (t) => {
    const sent = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: { messageId: 'm-e', role: 'ROLE_USER', parts: [{ data: INVOICE }] } }), headers: { ...V1, 'x-agent-token': me.token } });
    const id = sent.body.result.task.id;
    // the task completed: the peer refuses to cancel it (REST 400 TASK_NOT_CANCELABLE)
    const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc('CancelTask', { id }), headers: { ...V1, 'x-agent-token': me.token } });
    t.equal(r.status, 200);
    t.equal(r.body.error?.code, -32002, `TaskNotCancelable (${JSON.stringify(r.body).slice(0, 200)})`);
  });
});

t.test('hostile requests to a REST-only peer meet the same guards, and nothing refused reaches it', async (t) => {
  const peer = await startTaskPeer({ restOnly: true });
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/.well-known/agent-card.json`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const other = await agentToken(s);
  const h = (token: string) => ({ ...V1, 'x-agent-token': token });
  const msg = (invoice: unknown, extra: Record<string, unknown> = {}) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data: invoice }], ...extra });
  const sent = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: msg(INVOICE) }), headers: h(me.token) });
  const taskId: string = sent.body.result.task.id;
  t.ok(taskId, 'a task of mine');

  const before = peer.restReceived.length;
  for (const [method, params] of [
    ['GetTask', { id: taskId }],
    ['CancelTask', { id: taskId }],
    ['SubscribeToTask', { id: taskId }],
    ['CreateTaskPushNotificationConfig', { taskId, url: PUSH_URL }],
    ['GetTaskPushNotificationConfig', { taskId, id: 'cfg' }],
    ['ListTaskPushNotificationConfigs', { taskId }],
    ['DeleteTaskPushNotificationConfig', { taskId, id: 'cfg' }],
    ['SendMessage', { message: msg(INVOICE, { taskId }) }],
    ['GetTask', { id: 'nope', taskId }],
  ] as Array<[string, unknown]>) {
    const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc(method, params), headers: h(other.token) });
    t.equal(r.body?.error?.code, -32001, `another tenant: ${method} is not found`);
  }
  const wrong = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: msg(WRONG) }), headers: h(me.token) });
  t.equal(wrong.body.error.code, -32050, 'a wrong invoice is blocked');
  const inside = await s.request('POST', '/a2a/peers/ledger', { body: rpc('CreateTaskPushNotificationConfig', { taskId, id: 'c', url: 'https://127.0.0.1/hook' }), headers: h(me.token) });
  t.equal(inside.body.error.code, -32056, 'a push URL aimed inside is refused');
  const legacy = await s.request('POST', '/a2a/peers/ledger', { body: rpc('tasks/get', { id: taskId }), headers: h(me.token) });
  t.equal(legacy.body.error.code, -32009, 'a v0.3 name: this hop does not restate v0.3 shapes as REST');
  const badQuery = await s.request('POST', '/a2a/peers/ledger', { body: rpc('GetTask', { id: taskId, historyLength: { $gt: 1 } }), headers: h(me.token) });
  t.equal(badQuery.body.error.code, -32602, 'a query member that is not a plain value is invalid params');
  const slash = await s.request('POST', '/a2a/peers/ledger', { body: rpc('ListTasks', { pageToken: 'a&pageSize=1000' }), headers: h(me.token) });
  t.ok(slash.body.result ?? slash.body.error, 'the peer answered (its own verdict on such a page token)');
  t.match(peer.restReceived.at(-1), { method: 'GET', path: '/tasks?pageToken=a%26pageSize%3D1000' }, 'a query value is encoded, never spliced');
  t.equal(peer.restReceived.length, before + 1, 'only the one allowed call reached the peer');
  t.equal(peer.received.length, 0, 'and nothing as JSON-RPC');
});
