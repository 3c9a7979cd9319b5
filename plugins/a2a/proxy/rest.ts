import { Readable } from 'node:stream';
import { repeatedKeyError } from '../../../core/http/body.js';
import type { App, Reply, RequestContext, RouteInfo } from '../../../core/types.js';
import { MAX_ANSWER_BYTES } from './answer.js';
import { RpcCodes } from './jsonrpc.js';
import { handleOutbound, type OutboundDeps } from './outbound.js';
import { SseReader } from './sse.js';
import { restError } from './rest-errors.js';

/**
 * A2A's HTTP+JSON binding (A2A 1.0 §11, the paths of @a2a-js/sdk's RestTransport) under the peer
 * prefix. It holds no guard of its own: each REST request is restated as the JSON-RPC request of
 * the same operation and handed to the JSON-RPC path (outbound.ts), so ownership, push-URL checks,
 * verification and answer review are the ones every JSON-RPC caller gets. Toward the peer it is
 * the binding its card declares (JSON-RPC when it has it, else HTTP+JSON: rest-peer.ts); the
 * reviewed answer is restated as REST: the result as the body, an error as the HTTP
 * status and `{error: {code, status, message, details}}` with a google.rpc.ErrorInfo, as the SDK's
 * REST client reads it, and a stream's events as bare results (`event: error` for the last one).
 */
export type RestOp =
  | 'send'
  | 'stream'
  | 'list'
  | 'task' // GET tasks/{id}, or tasks/{id}:subscribe
  | 'task_action' // POST tasks/{id}:cancel or :subscribe
  | 'push_create'
  | 'push_list'
  | 'push_get'
  | 'push_delete'
  | 'extended_card';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const A2A_DOMAIN = 'a2a-protocol.org';

interface Mapped {
  method: string;
  /** the JSON-RPC request's bytes: for a message, the client's body spliced in as sent */
  raw: Buffer;
  body: Record<string, unknown>;
  /** HTTP status of a success (201 for a created push config, 204 for a delete) */
  ok: number;
}

type Restated = { ok: true; m: Mapped } | { ok: false; reply: Reply };

const problem = (code: number, message: string): Reply => {
  const { status, body } = restError({ code, message });
  return { status, headers: { 'content-type': 'application/json' }, body };
};

const notFound = (message: string): Reply => ({
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: { error: { code: 404, status: 'NOT_FOUND', message, details: [{ '@type': ERROR_INFO, reason: 'NOT_FOUND', domain: A2A_DOMAIN }] } },
});

/** one value per query member: a repeated one is refused, as a repeated JSON member is */
function single(q: Readonly<Record<string, unknown>>, k: string): string | undefined | null {
  const v = q[k];
  if (Array.isArray(v)) return null;
  return typeof v === 'string' ? v : undefined;
}

function int(v: string): number | null {
  return /^\d{1,9}$/.test(v) ? Number(v) : null;
}

const rpc = (method: string, params: Record<string, unknown> | null, paramsRaw?: Buffer): Buffer =>
  paramsRaw
    ? Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":`), paramsRaw, Buffer.from('}')])
    : Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));

const mapped = (method: string, params: Record<string, unknown>, ok = 200, paramsRaw?: Buffer): Restated => ({
  ok: true,
  m: { method, raw: rpc(method, params, paramsRaw), body: { jsonrpc: '2.0', id: 1, method, params }, ok },
});

/** `op`: the route; `task`/`config`: path members; the body as the kernel parsed it, and its bytes */
export function restate(op: RestOp, ctx: RequestContext): Restated {
  const task = ctx.params.task;
  const q = ctx.query;
  if ((op === 'send' || op === 'stream' || op === 'push_create') && ctx.rawBody?.length) {
    const dup = repeatedKeyError(ctx.rawBody);
    if (dup) return { ok: false, reply: problem(RpcCodes.invalidRequest, `Request malformed: ${dup.detail}`) };
  }
  const body = ctx.body;
  const isObj = !!body && typeof body === 'object' && !Array.isArray(body);
  switch (op) {
    case 'send':
    case 'stream':
      if (!isObj || !ctx.rawBody) return { ok: false, reply: problem(RpcCodes.invalidParams, 'Request malformed: a SendMessageRequest object') };
      // the body is the JSON-RPC params as sent, byte for byte: what is verified is what the peer reads
      return mapped(op === 'send' ? 'SendMessage' : 'SendStreamingMessage', body as Record<string, unknown>, 200, ctx.rawBody);
    case 'list': {
      const p: Record<string, unknown> = {};
      for (const k of ['contextId', 'status', 'pageToken', 'statusTimestampAfter', 'pageSize', 'historyLength', 'includeArtifacts']) {
        const v = single(q, k);
        if (v === null) return { ok: false, reply: problem(RpcCodes.invalidParams, `Request malformed: query member ${k} repeated`) };
        if (v === undefined || v === '') continue;
        if (k === 'pageSize' || k === 'historyLength') {
          const n = int(v);
          if (n === null) return { ok: false, reply: problem(RpcCodes.invalidParams, `Request malformed: ${k} is a non-negative integer`) };
          p[k] = n;
        } else if (k === 'includeArtifacts') p[k] = v === 'true';
        else p[k] = v;
      }
      return mapped('ListTasks', p);
    }
    case 'task':
    case 'task_action': {
      const at = task.lastIndexOf(':');
      const verb = at >= 0 ? task.slice(at + 1) : '';
      const id = at >= 0 ? task.slice(0, at) : task;
      if (verb === 'subscribe') return mapped('SubscribeToTask', { id });
      // a path the binding does not define is a 404, as for any unknown route; 501 says the
      // operation exists but the agent does not support it, which the proxy cannot know here
      if (op === 'task_action') return verb === 'cancel' ? mapped('CancelTask', { id }) : { ok: false, reply: notFound('Not found: POST tasks/{id}:cancel or :subscribe') };
      const h = single(q, 'historyLength');
      if (h === null) return { ok: false, reply: problem(RpcCodes.invalidParams, 'Request malformed: query member historyLength repeated') };
      const p: Record<string, unknown> = { id: task };
      if (h !== undefined && h !== '') {
        const n = int(h);
        if (n === null) return { ok: false, reply: problem(RpcCodes.invalidParams, 'Request malformed: historyLength is a non-negative integer') };
        p.historyLength = n;
      }
      return mapped('GetTask', p);
    }
    case 'push_create':
      if (!isObj) return { ok: false, reply: problem(RpcCodes.invalidParams, 'Request malformed: a TaskPushNotificationConfig object') };
      // the path names the task, as the SDK's server reads it: a taskId in the body does not override it
      return mapped('CreateTaskPushNotificationConfig', { ...(body as Record<string, unknown>), taskId: task }, 201);
    case 'push_list':
      return mapped('ListTaskPushNotificationConfigs', { taskId: task });
    case 'push_get':
      return mapped('GetTaskPushNotificationConfig', { taskId: task, id: ctx.params.config });
    case 'push_delete':
      return mapped('DeleteTaskPushNotificationConfig', { taskId: task, id: ctx.params.config }, 204);
    case 'extended_card':
      return mapped('GetExtendedAgentCard', {});
  }
}

/** the request as the JSON-RPC path reads it; everything else (signal, principal, log) is the original's */
export function rpcContext(ctx: RequestContext, m: Mapped): RequestContext {
  const over: Record<string | symbol, unknown> = { body: m.body, rawBody: m.raw, params: { receiver: ctx.params.receiver } };
  return new Proxy(ctx, {
    get: (target, k) => (Object.hasOwn(over, k) ? over[k] : Reflect.get(target, k, target)),
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** the JSON-RPC path's reply restated as REST */
export function toRest(reply: Reply, m: Mapped): Reply {
  const headers = { ...(reply.headers ?? {}) };
  if (reply.body instanceof Readable) {
    return { status: reply.status, headers: { ...headers, 'content-type': 'text/event-stream' }, body: Readable.from(restStream(reply.body)) };
  }
  const b = reply.body;
  if (isRecord(b) && isRecord(b.error)) {
    const e = restError(b.error);
    return { status: e.status, headers: { ...headers, 'content-type': 'application/json' }, body: e.body };
  }
  if (!isRecord(b) || !Object.hasOwn(b, 'result')) {
    const e = restError({ code: RpcCodes.answerWithheld, message: 'Answer withheld: not a JSON-RPC answer' });
    return { status: e.status, headers: { ...headers, 'content-type': 'application/json' }, body: e.body };
  }
  if (m.ok === 204) return { status: 204, headers: { ...headers, 'content-type': 'application/json' }, body: '' };
  return { status: m.ok, headers: { ...headers, 'content-type': 'application/json' }, body: b.result ?? {} };
}

/** reviewed JSON-RPC events (answer.ts wrote them) as REST events: the result, or `event: error` and the end */
async function* restStream(body: Readable): AsyncGenerator<string> {
  // events were bounded by the review; the reader only splits them again
  const reader = new SseReader(4 * MAX_ANSWER_BYTES);
  const decoder = new TextDecoder('utf-8');
  const one = (data: string): { out: string; last: boolean } => {
    let v: unknown;
    try {
      v = JSON.parse(data);
    } catch {
      v = null;
    }
    if (isRecord(v) && Object.hasOwn(v, 'result')) return { out: `data: ${JSON.stringify(v.result)}\n\n`, last: false };
    const e = restError(isRecord(v) && isRecord(v.error) ? v.error : { code: RpcCodes.answerWithheld, message: 'Answer withheld: an event is not a JSON-RPC answer' });
    return { out: `event: error\ndata: ${JSON.stringify(e.body)}\n\n`, last: true };
  };
  try {
    for await (const chunk of body) {
      // answer.ts hands on strings; bytes are decoded in case another writer does not
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Buffer, { stream: true });
      for (const data of reader.push(text)) {
        const { out, last } = one(data);
        yield out;
        if (last) return;
      }
    }
    const rest = reader.end();
    if (rest !== null) yield one(rest).out;
  } finally {
    body.destroy();
  }
}

const S = (f: string) => `https://proofgate.dev/schemas/a2a/${f}.json`;

/**
 * The REST routes beside POST /a2a/peers/{receiver}, with its credential, scope and body limit.
 * tasks/{id}:cancel and :subscribe are one path segment to the router: the verb is split off here.
 */
export function registerRest(app: App, route: Pick<RouteInfo, 'auth' | 'authAlso' | 'scope' | 'tags' | 'bodyLimit'>, deps: () => OutboundDeps): void {
  const P = '/a2a/peers/:receiver';
  const table: Array<[RouteInfo['method'], string, RestOp, string | null, string]> = [
    ['POST', `${P}/message::send`, 'send', S('rest-message.body'), 'peer.params'],
    ['POST', `${P}/message::stream`, 'stream', S('rest-message.body'), 'peer.params'],
    ['GET', `${P}/tasks`, 'list', null, 'peer.params'],
    ['GET', `${P}/tasks/:task`, 'task', null, 'rest-task.params'],
    ['POST', `${P}/tasks/:task`, 'task_action', null, 'rest-task.params'],
    ['POST', `${P}/tasks/:task/pushNotificationConfigs`, 'push_create', S('rest-push-config.body'), 'rest-task.params'],
    ['GET', `${P}/tasks/:task/pushNotificationConfigs`, 'push_list', null, 'rest-task.params'],
    ['GET', `${P}/tasks/:task/pushNotificationConfigs/:config`, 'push_get', null, 'rest-push.params'],
    ['DELETE', `${P}/tasks/:task/pushNotificationConfigs/:config`, 'push_delete', null, 'rest-push.params'],
    ['GET', `${P}/extendedAgentCard`, 'extended_card', null, 'peer.params'],
  ];
  for (const [method, path, op, body, params] of table) {
    app.route({
      method,
      path,
      ...route,
      // a cancel or subscribe body carries nothing the operation reads (the SDK sends none): not read
      bodyType: body ? 'json' : 'none',
      schema: { params: S(params), ...(body ? { body } : {}), response: S('rest-response') },
      handler: async (ctx) => {
        const r = restate(op, ctx);
        if (!r.ok) return r.reply;
        return toRest(await handleOutbound(deps(), rpcContext(ctx, r.m)), r.m);
      },
    });
  }
}
