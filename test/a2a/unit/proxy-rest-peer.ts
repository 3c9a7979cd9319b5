import t from 'tap';
import { memberText } from '../../../plugins/a2a/proxy/raw-member.js';
import { restCall, restEndpoint, rpcAnswerOf } from '../../../plugins/a2a/proxy/rest-peer.js';
import { jsonRpcEndpoint } from '../../../plugins/a2a/proxy/cards.js';
import type { RpcRequest } from '../../../plugins/a2a/proxy/jsonrpc.js';

/** The upstream leg to a REST-only peer (issue 39): the raw params, the call, the answer read back. */
t.test('memberText: the member’s bytes as written, found by its decoded name', async (t) => {
  const raw = (s: string) => Buffer.from(s, 'utf8');
  t.equal(memberText(raw('{"id":1,"params":{"a":[1,"}",{"b":"\\""}]},"x":2}'), 'params'), '{"a":[1,"}",{"b":"\\""}]}');
  t.equal(memberText(raw('{ "p\\u0061rams" :  {"n": 9007199254740993} }'), 'params'), '{"n": 9007199254740993}', 'an escaped name, a number beyond doubles kept');
  t.equal(memberText(raw('{"meta":{"params":1},"params":[]}'), 'params'), '[]', 'a nested member of the name is not it');
  t.equal(memberText(raw('{"params":"é\\u00e9"}'), 'params'), '"é\\u00e9"');
  t.equal(memberText(raw('{"other":1}'), 'params'), null);
  t.equal(memberText(raw('[{"params":1}]'), 'params'), null, 'not an object');
  t.equal(memberText(raw('{"params":{"a":1'), 'params'), null, 'cut');
});

t.test('restCall: every 1.0 method on its REST path; ids encoded; v0.3 names refused', async (t) => {
  const ep = new URL('http://peer.test/api/');
  const req = (method: string, kind: RpcRequest['kind'], params: Record<string, unknown>): RpcRequest => ({ id: 1, method, kind, params });
  const call = (r: RpcRequest) => {
    const c = restCall(r, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: r.method, params: r.params })), ep);
    return c.ok ? `${c.call.method} ${c.call.url.pathname}${c.call.url.search}` : c.code;
  };
  t.equal(call(req('SendMessage', 'send', { message: {} })), 'POST /api/message:send');
  t.equal(call(req('SendStreamingMessage', 'stream', { message: {}, tenant: 't 1' })), 'POST /api/t%201/message:stream', 'a tenant is a path prefix');
  t.equal(call(req('GetTask', 'get', { id: 'a/b:c', historyLength: 2 })), 'GET /api/tasks/a%2Fb%3Ac?historyLength=2', 'an id cannot climb out of its segment');
  t.equal(call(req('CancelTask', 'cancel', { id: 'x' })), 'POST /api/tasks/x:cancel');
  t.equal(call(req('SubscribeToTask', 'subscribe', { id: 'x' })), 'POST /api/tasks/x:subscribe');
  t.equal(call(req('ListTasks', 'list', { pageSize: 5, includeArtifacts: true })), 'GET /api/tasks?pageSize=5&includeArtifacts=true');
  t.equal(call(req('CreateTaskPushNotificationConfig', 'push_set', { taskId: 'x', url: 'https://h/' })), 'POST /api/tasks/x/pushNotificationConfigs');
  t.equal(call(req('GetTaskPushNotificationConfig', 'push_get', { taskId: 'x', id: 'c' })), 'GET /api/tasks/x/pushNotificationConfigs/c');
  t.equal(call(req('ListTaskPushNotificationConfigs', 'push_list', { taskId: 'x' })), 'GET /api/tasks/x/pushNotificationConfigs');
  t.equal(call(req('DeleteTaskPushNotificationConfig', 'push_delete', { taskId: 'x', id: 'c' })), 'DELETE /api/tasks/x/pushNotificationConfigs/c');
  t.equal(call(req('GetExtendedAgentCard', 'extended_card', {})), 'GET /api/extendedAgentCard');
  t.equal(call(req('tasks/get', 'get', { id: 'x' })), -32009, 'a v0.3 name');
  t.equal(call(req('GetTask', 'get', { id: 'x', historyLength: -1 })), -32602);
  t.equal(call(req('GetTask', 'get', { id: '' })), -32602);
  t.equal(call(req('ListTasks', 'list', { status: ['a', 'b'] })), -32602, 'a list in a query member');
  t.equal(call(req('GetTaskPushNotificationConfig', 'push_get', { taskId: 'x' })), -32602, 'no config id');
  t.equal(call(req('SendMessage', 'send', { tenant: 5, message: {} })), -32602);
  for (const dots of ['.', '..']) {
    t.equal(call(req('SendMessage', 'send', { tenant: dots, message: {} })), -32602, `a tenant ${dots} would leave the interface path`);
    t.equal(call(req('GetTask', 'get', { id: dots })), -32602, `a task id ${dots} too`);
    t.equal(call(req('GetTaskPushNotificationConfig', 'push_get', { taskId: 'x', id: dots })), -32602, `a config id ${dots} too`);
  }
  t.equal(call(req('GetTask', 'get', { id: '...' })), 'GET /api/tasks/...', 'three dots are a name');
});

t.test('rpcAnswerOf and restEndpoint', async (t) => {
  t.same(rpcAnswerOf(3, 204, undefined), { jsonrpc: '2.0', id: 3, result: null });
  t.same(rpcAnswerOf(3, 404, { error: { message: 'm', details: [{ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] } }), { jsonrpc: '2.0', id: 3, error: { code: -32001, message: 'm' } });
  t.same(rpcAnswerOf(3, 400, { error: { details: [{ reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' }] } })?.error, { code: -32602, message: 'HTTP 400' });
  t.equal(rpcAnswerOf(3, 500, 'oops'), null, 'no error body');
  t.equal(rpcAnswerOf(3, 500, { error: 'x' }), null);
  t.equal(restEndpoint({ supportedInterfaces: [{ protocolBinding: 'HTTP+JSON', protocolVersion: '0.3', url: 'http://a/' }, { protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', url: 'http://b/' }] })?.href, 'http://b/', 'the first of A2A 1.0');
  t.equal(restEndpoint({ supportedInterfaces: [{ protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', url: 'file:///etc/passwd' }] }), null);
  t.equal(restEndpoint({ preferredTransport: 'HTTP+JSON', url: 'http://a/' }), null, 'a v0.3 REST card is another shape');
  // JSON-RPC first, whatever the card prefers
  t.equal(jsonRpcEndpoint({ preferredTransport: 'HTTP+JSON', url: 'http://rest/', additionalInterfaces: [{ transport: 'HTTP+JSON', url: 'http://rest/' }, { transport: 'JSONRPC', url: 'http://rpc/' }] })?.href, 'http://rpc/', 'a v0.3 card preferring REST, JSON-RPC among its additional interfaces');
  t.equal(jsonRpcEndpoint({ preferredTransport: 'HTTP+JSON', url: 'http://rest/' }), null, 'a v0.3 card with REST only');
  t.equal(jsonRpcEndpoint({ url: 'http://rpc/', additionalInterfaces: [{ transport: 'JSONRPC', url: 'http://other/' }] })?.href, 'http://rpc/', 'its url when JSON-RPC is preferred');
});
