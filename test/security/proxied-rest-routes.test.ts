import t from 'tap';
import { createKey, registerAgent, tenant } from '../helpers/tenancy.js';
import { rawRequest } from '../helpers/hostile-wire.js';
import { OWN_TASK, PUSH_URL, startHarness, type Harness } from './proxied-routes-table.js';

/**
 * Issue 39: the HTTP+JSON routes of the outbound proxy under the classes the body-driven harness
 * (proxied-routes.test.ts, which runs its rows for message:send and push-config creation) cannot
 * throw at a route without a body: another tenant, another agent, a weaker or wrongly bound key, no
 * credential, hostile ids in the path, hostile query members, a body where none is read. A refusal
 * never reaches the peer; nothing is ever a 5xx.
 */
interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** the path under /a2a/peers/h for a task id (already encoded) */
  path: (id: string) => string;
  /** the JSON-RPC method the peer receives */
  rpc: string;
  ok: number;
  body?: string;
}

const ROUTES: RestRoute[] = [
  { method: 'GET', path: (id) => `/tasks/${id}`, rpc: 'GetTask', ok: 200 },
  { method: 'POST', path: (id) => `/tasks/${id}:cancel`, rpc: 'CancelTask', ok: 200 },
  { method: 'GET', path: (id) => `/tasks/${id}/pushNotificationConfigs`, rpc: 'ListTaskPushNotificationConfigs', ok: 200 },
  { method: 'GET', path: (id) => `/tasks/${id}/pushNotificationConfigs/cfg`, rpc: 'GetTaskPushNotificationConfig', ok: 200 },
  { method: 'DELETE', path: (id) => `/tasks/${id}/pushNotificationConfigs/cfg`, rpc: 'DeleteTaskPushNotificationConfig', ok: 204 },
  { method: 'POST', path: (id) => `/tasks/${id}/pushNotificationConfigs`, rpc: 'CreateTaskPushNotificationConfig', ok: 201, body: JSON.stringify({ id: 'cfg', url: PUSH_URL }) },
  { method: 'POST', path: (id) => `/message:send`, rpc: 'SendMessage', ok: 200, body: JSON.stringify({ message: { messageId: 'm-r', role: 'ROLE_USER', taskId: OWN_TASK, parts: [{ data: { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] } }] } }) },
];
const label = (r: RestRoute) => `${r.method} ${r.path('{id}')}`;

async function send(h: Harness, r: RestRoute, id: string, headers: Record<string, string>, o: { query?: string; body?: string } = {}) {
  const body = o.body ?? r.body;
  const mark = h.up.received.length;
  const res = await rawRequest(`${h.s.url}/a2a/peers/h${r.path(id)}${o.query ?? ''}`, { method: r.method, headers: { 'a2a-version': '1.0', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(body !== undefined ? { body } : {}) });
  t.ok(res.status < 500, `${label(r)} ${id.slice(0, 40)}: never a 5xx (${res.status} ${res.text.slice(0, 120)})`);
  return { res, forwarded: h.receivedSince(mark, '/rpc') };
}

t.test('the HTTP+JSON routes of the outbound proxy under hostile callers and paths', async (t) => {
  const h = await startHarness(t);
  const own = { 'x-agent-token': (h.routes.find((r) => r.path === '/a2a/peers/h')!.headers as Record<string, string>)['x-agent-token'] };
  const otherOrg = await tenant(h.s, ['verify:read', 'agent:write']);
  const stranger = await registerAgent(h.s, otherOrg.key, { name: 'stranger' });
  const colleague = await registerAgent(h.s, h.org.key, { name: 'colleague' });
  const readOnly = await createKey(h.s, h.org.token, { name: 'weaker', scopes: ['attestation:read'] });
  const boundElsewhere = await createKey(h.s, h.org.token, { name: 'bound', scopes: ['verify:read'], a2a_senders: [colleague.agent_id] });
  const boundHere = await createKey(h.s, h.org.token, { name: 'bound-here', scopes: ['verify:read'], a2a_senders: [h.agentId] });

  await t.test('control: the agent’s own task, forwarded once as the JSON-RPC operation', async (t) => {
    for (const r of ROUTES) {
      for (const [who, headers] of [['its agent token', own], ['a key bound to it', { 'x-api-key': boundHere.key }]] as const) {
        const { res, forwarded } = await send(h, r, OWN_TASK, headers);
        t.equal(res.status, r.ok, `${label(r)} with ${who}: ${res.text.slice(0, 160)}`);
        t.equal(forwarded.length, 1, `${label(r)} with ${who}: forwarded once`);
        t.equal(forwarded[0]?.json?.method, r.rpc, `${label(r)}: as ${r.rpc}`);
      }
    }
  });

  await t.test('another tenant, another agent, a weaker or wrongly bound key, no credential', async (t) => {
    const callers: Array<[string, Record<string, string>, number, string | null]> = [
      ['another tenant', { 'x-agent-token': stranger.agent_token }, 404, 'TASK_NOT_FOUND'],
      ['another agent of the organisation', { 'x-agent-token': colleague.agent_token }, 404, 'TASK_NOT_FOUND'],
      ['a key bound to another sender', { 'x-api-key': boundElsewhere.key }, 404, 'TASK_NOT_FOUND'],
      ['a key without verify:read', { 'x-api-key': readOnly.key }, 403, null],
      ['another tenant’s key', { 'x-api-key': otherOrg.key }, 404, 'TASK_NOT_FOUND'],
      ['no credential', {}, 401, null],
      ['a forged agent token', { 'x-agent-token': `${own['x-agent-token']}x` }, 401, null],
    ];
    for (const r of ROUTES) {
      for (const [who, headers, status, reason] of callers) {
        const { res, forwarded } = await send(h, r, OWN_TASK, headers);
        // a message naming the task by an API key bound to none may fail earlier (no sender): still refused
        t.equal(res.status, status, `${label(r)} by ${who}: ${status} (${res.text.slice(0, 120)})`);
        if (reason) t.equal(res.body?.error?.details?.[0]?.reason, reason, `${label(r)} by ${who}: ${reason}, like a task never seen`);
        t.same(forwarded, [], `${label(r)} by ${who}: nothing reached the peer`);
      }
    }
  });

  await t.test('hostile ids in the path', async (t) => {
    const ids = ['never-seen', '..', '%2e%2e', `${OWN_TASK}%2F..%2Fother`, `${OWN_TASK}%00`, '%FF', `x`.repeat(8 * 1024), `${OWN_TASK}%3Acancel`, encodeURIComponent(`${OWN_TASK} `), encodeURIComponent(OWN_TASK.toUpperCase()), '%E2%80%AE' + OWN_TASK];
    for (const r of ROUTES.filter((x) => x.rpc !== 'SendMessage')) {
      for (const id of ids) {
        const { res, forwarded } = await send(h, r, id, own);
        t.ok(res.status >= 400, `${label(r)} ${id.slice(0, 40)}: refused (${res.status})`);
        t.same(forwarded, [], `${label(r)} ${id.slice(0, 40)}: nothing reached the peer`);
      }
    }
  });

  await t.test('hostile query members and bodies where none is read', async (t) => {
    const get = ROUTES[0];
    for (const query of ['?historyLength=1&historyLength=2', '?historyLength=-1', '?historyLength=1e400', '?historyLength=abc', '?historyLength=99999999999', '?historyLength=%00']) {
      const { res, forwarded } = await send(h, get, OWN_TASK, own, { query });
      t.equal(res.status, 400, `GET tasks/{id}${query}: 400`);
      t.same(forwarded, [], `GET tasks/{id}${query}: nothing reached the peer`);
    }
    const { res: ok, forwarded: viaQuery } = await send(h, get, OWN_TASK, own, { query: '?id=victim&taskId=victim&historyLength[]=1' });
    t.equal(ok.status, 200, 'members the route does not read are ignored');
    t.equal(viaQuery[0]?.json?.params?.id, OWN_TASK, 'the path names the task, not the query');
    const cancel = ROUTES[1];
    const { res, forwarded } = await send(h, cancel, OWN_TASK, own, { body: JSON.stringify({ id: 'victim', taskId: 'victim', name: 'tasks/victim' }) });
    t.equal(res.status, 200, `a cancel with a body naming another task: the body is not read (${res.text.slice(0, 120)})`);
    t.same(forwarded.map((g) => g.json?.params), [{ id: OWN_TASK }], 'the peer cancels the path’s task only');
    const { res: strangerCancel, forwarded: none } = await send(h, cancel, 'victim', { 'x-agent-token': stranger.agent_token }, { body: JSON.stringify({ id: OWN_TASK }) });
    t.equal(strangerCancel.status, 404, 'another tenant naming my task in the body of a cancel: not found');
    t.same(none, [], 'nothing reached the peer');
    const { res: huge, forwarded: hugeFwd } = await send(h, cancel, OWN_TASK, own, { body: 'x'.repeat(64 * 1024) });
    t.ok(huge.status === 413 || huge.status === 200, `a huge unread body: refused or ignored (${huge.status})`);
    if (huge.status === 200) t.same(hugeFwd.map((g) => g.json?.params), [{ id: OWN_TASK }], 'and never forwarded');
    const deep = await send(h, cancel, OWN_TASK, own, { body: `${'['.repeat(5000)}${']'.repeat(5000)}` });
    t.ok(deep.res.status < 500, 'a deep unread body: never a 5xx');
    t.equal((await h.s.request('GET', '/healthz')).status, 200, 'the server is up');
  });
});
