import t from 'tap';
import { agentToken, proxySidecar } from '../helpers/a2a-proxy.js';
import { startTaskPeer } from '../helpers/a2a-task-peer.js';

/**
 * Issue 39: ext_authz sees no answer, so it cannot learn who created a task. A task read or cancel
 * (and a message continuing or referring to a task) is allowed only on a task the outbound proxy
 * recorded as the caller's; another's, and one never recorded, are denied alike.
 */
const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };
const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const message = (extra: Record<string, unknown> = {}) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data: INVOICE }], ...extra });
const V1 = { 'a2a-version': '1.0' };

t.test('ext_authz allows task reads and cancels on the caller’s own recorded tasks only', async (t) => {
  const peer = await startTaskPeer();
  t.teardown(() => peer.close());
  const s = await proxySidecar({ peers: { ledger: { url: `${peer.url}/rpc`, jwks_url: peer.jwksUrl } } });
  t.teardown(() => s.close());
  const me = await agentToken(s);
  const other = await agentToken(s);
  const colleague = (await s.request('POST', '/agents/register', { apiKey: me.key, body: { name: 'seller' } })).body.agent_token as string;
  const create = async (token: string) => {
    const r = await s.request('POST', '/a2a/peers/ledger', { body: rpc('SendMessage', { message: message() }), headers: { ...V1, 'x-agent-token': token } });
    return { taskId: r.body.result.task.id as string, contextId: r.body.result.task.contextId as string };
  };
  const mine = await create(me.token);
  const theirs = await create(other.token);
  const authz = (token: string, body: unknown) => s.request('POST', '/ext-authz/rpc', { body, headers: { ...V1, 'x-agent-token': token, 'x-a2a-receiver': 'ledger' } });
  const authzGet = (token: string, path: string) => s.request('GET', `/ext-authz/${path}`, { headers: { 'x-agent-token': token, 'x-a2a-receiver': 'ledger' } });

  const reads: Array<[string, (id: string) => unknown]> = [
    ['GetTask', (id) => ({ id })],
    ['tasks/get', (id) => ({ id })],
    ['CancelTask', (id) => ({ id })],
    ['tasks/cancel', (id) => ({ id })],
  ];
  for (const [method, params] of reads) {
    const own = await authz(me.token, rpc(method, params(mine.taskId)));
    t.equal(own.status, 200, `${method}: my own task is allowed (${own.text.slice(0, 120)})`);
    for (const [who, token] of [
      ['another tenant', other.token],
      ['another agent of my organisation', colleague],
    ] as const) {
      const r = await authz(token, rpc(method, params(mine.taskId)));
      t.equal(r.status, 403, `${who}: ${method} on my task is denied`);
      t.equal(r.body.code, 'a2a_ext_authz_denied');
    }
    const unknown = await authz(me.token, rpc(method, params('never-recorded')));
    t.equal(unknown.status, 403, `${method}: a task never recorded is denied, never allowed`);
    t.same(unknown.body.detail, (await authz(other.token, rpc(method, params(mine.taskId)))).body.detail, `${method}: unknown and another’s read alike`);
  }
  // the other tenant's own task in the member one version reads, mine in the member the other reads
  for (const params of [{ id: theirs.taskId, taskId: mine.taskId }, { id: theirs.taskId, task_id: mine.taskId }, { taskId: mine.taskId }]) {
    for (const method of ['GetTask', 'tasks/get', 'CancelTask', 'tasks/cancel']) {
      const r = await authz(other.token, rpc(method, params));
      t.equal(r.status, 403, `${method} ${JSON.stringify(params).slice(0, 50)}: my id hidden in another member is denied`);
    }
  }
  t.equal((await authz(other.token, rpc('GetTask', { id: theirs.taskId }))).status, 200, 'the other tenant reads its own task');
  t.equal((await authz(me.token, rpc('GetTask', { id: 5 }))).status, 403, 'a task id that is not a string is denied');
  t.equal((await authz(me.token, rpc('GetTask', {}))).status, 403, 'no task id is denied');

  await t.test('messages naming a task or a conversation', async (t) => {
    const attempts: Array<[string, unknown]> = [
      ['taskId', message({ taskId: mine.taskId })],
      ['referenceTaskIds', message({ referenceTaskIds: [theirs.taskId, mine.taskId] })],
      ['contextId', message({ contextId: mine.contextId })],
    ];
    for (const [what, m] of attempts) {
      for (const method of ['SendMessage', 'message/stream']) {
        const r = await authz(other.token, rpc(method, { message: m }));
        t.equal(r.status, 403, `another tenant: ${method} with my ${what} is denied`);
        t.notOk(r.headers.get('x-proofgate-verdict'), 'and carries no verdict');
      }
    }
    t.equal((await authz(me.token, rpc('SendMessage', { message: message({ taskId: 'never-recorded' }) }))).status, 403, 'a message continuing an unrecorded task is denied');
    const cont = await authz(me.token, rpc('SendMessage', { message: message({ taskId: mine.taskId, contextId: mine.contextId }) }));
    t.equal(cont.status, 200, `I continue my own task (${cont.text.slice(0, 120)})`);
    t.ok(cont.headers.get('x-proofgate-verdict'), 'with the verdict');
    t.equal((await authz(other.token, rpc('SendMessage', { message: message() }))).status, 200, 'a message naming no task is verified as before');
  });

  await t.test('HTTP+JSON GETs: card discovery, and task reads by ownership', async (t) => {
    for (const path of [`tasks/${mine.taskId}`, `v1/tasks/${mine.taskId}`, `rest/tasks/${mine.taskId}`]) {
      t.equal((await authzGet(me.token, path)).status, 200, `GET ${path}: mine, allowed`);
      t.equal((await authzGet(other.token, path)).status, 403, `GET ${path}: another tenant denied`);
      t.equal((await authzGet(colleague, path)).status, 403, `GET ${path}: another agent of my organisation denied`);
    }
    for (const path of ['tasks/never-recorded', 'v1/tasks/never-recorded', `tasks/${encodeURIComponent(mine.taskId + '%')}`]) {
      t.equal((await authzGet(me.token, path)).status, 403, `GET ${path}: not recorded, denied`);
    }
    for (const path of ['tasks', `tasks/${mine.taskId}:subscribe`, `tasks/${mine.taskId}/pushNotificationConfigs`, 'extendedAgentCard', 'v1/card', '']) {
      t.equal((await authzGet(me.token, path)).status, 403, `GET /${path}: needs its answer reviewed, denied`);
    }
    t.equal((await authzGet(other.token, '.well-known/agent-card.json')).status, 200, 'AgentCard discovery is allowed');
    t.equal((await s.request('GET', `/ext-authz/tasks/${mine.taskId}`, { headers: { 'x-a2a-receiver': 'ledger' } })).status, 401, 'without a credential: 401');
  });
});
