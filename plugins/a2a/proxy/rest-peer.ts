import type { RpcId, RpcRequest } from './jsonrpc.js';
import { isLegacy, RpcCodes } from './jsonrpc.js';
import { memberText } from './raw-member.js';
import { rpcCodeOf } from './rest-errors.js';

/**
 * The upstream leg to a peer whose card declares only the HTTP+JSON binding (A2A 1.0 §11): the
 * JSON-RPC request the proxy reviewed (outbound.ts: ownership, push URLs, verification) is stated
 * as the peer's REST call, and its answer read back as the JSON-RPC answer the same review reads
 * (answer.ts). A message goes out as the client's own `params` bytes. Only the 1.0 binding is
 * spoken: a v0.3 REST body is another shape (protobuf JSON of the 0.3 types), which this hop does
 * not translate, so v0.3 method names to such a peer are refused, nothing sent.
 */
export interface RestCall {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  body: Buffer | null;
  stream: boolean;
}

export type RestCallOrRefusal = { ok: true; call: RestCall } | { ok: false; code: number; message: string };

const invalid = (why: string): RestCallOrRefusal => ({ ok: false, code: RpcCodes.invalidParams, message: `Invalid params: ${why}` });

/** one path segment: `.` and `..` (which encodeURIComponent leaves as they are) would climb out of the interface's path */
const segment = (v: unknown): string | null => (typeof v === 'string' && v !== '' && v !== '.' && v !== '..' ? encodeURIComponent(v) : null);

/** query members as the SDK's REST client writes them: strings, integers and booleans only */
function query(p: Record<string, unknown>, keys: string[]): string | null {
  const q = new URLSearchParams();
  for (const k of keys) {
    const v = p[k];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) q.set(k, String(v));
    else return null;
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function restCall(req: RpcRequest, raw: Buffer, endpoint: URL): RestCallOrRefusal {
  if (isLegacy(req.method)) return { ok: false, code: -32009, message: `Version not supported: the peer speaks A2A 1.0 over HTTP+JSON only; use the 1.0 name of ${req.method}` };
  const p = req.params;
  const tenant = p.tenant === undefined || p.tenant === '' ? '' : segment(p.tenant);
  if (tenant === null) return invalid('tenant is a string naming one path segment');
  const base = `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}${tenant ? `/${tenant}` : ''}`;
  const at = (method: RestCall['method'], path: string, body: Buffer | null = null, stream = false): RestCallOrRefusal => ({ ok: true, call: { method, url: new URL(base + path), body, stream } });
  const task = segment(req.kind.startsWith('push_') ? (p.taskId ?? p.task_id) : p.id);
  switch (req.kind) {
    case 'send':
    case 'stream': {
      // the params as the client wrote them: the bytes verified are the bytes the peer reads
      const text = memberText(raw, 'params');
      if (text === null) return invalid('params could not be read as sent');
      return at('POST', req.kind === 'send' ? '/message:send' : '/message:stream', Buffer.from(text, 'utf8'), req.kind === 'stream');
    }
    case 'get': {
      const q = query(p, ['historyLength']);
      if (!task || q === null) return invalid('a task id, and historyLength a non-negative integer');
      return at('GET', `/tasks/${task}${q}`);
    }
    case 'cancel':
      return task ? at('POST', `/tasks/${task}:cancel`) : invalid('a task id');
    case 'subscribe':
      return task ? at('POST', `/tasks/${task}:subscribe`, null, true) : invalid('a task id');
    case 'list': {
      const q = query(p, ['contextId', 'status', 'pageSize', 'pageToken', 'historyLength', 'statusTimestampAfter', 'includeArtifacts']);
      return q === null ? invalid('ListTasks members are strings, non-negative integers or booleans') : at('GET', `/tasks${q}`);
    }
    case 'push_set':
      // the push URLs in it were checked before this point (outbound.ts)
      return task ? at('POST', `/tasks/${task}/pushNotificationConfigs`, Buffer.from(JSON.stringify(p), 'utf8')) : invalid('a task id');
    case 'push_list': {
      const q = query(p, ['pageSize', 'pageToken']);
      return task && q !== null ? at('GET', `/tasks/${task}/pushNotificationConfigs${q}`) : invalid('a task id');
    }
    case 'push_get':
    case 'push_delete': {
      const config = segment(p.id);
      if (!task || !config) return invalid('a task id and a config id');
      return at(req.kind === 'push_get' ? 'GET' : 'DELETE', `/tasks/${task}/pushNotificationConfigs/${config}`);
    }
    case 'extended_card':
      return at('GET', '/extendedAgentCard');
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The peer's REST answer as the JSON-RPC answer to request `id`: a 2xx body is the result (none,
 * as for a deleted config, is null); an error body `{error: {message, details: [ErrorInfo]}}` is
 * the JSON-RPC error its ErrorInfo names (an unknown reason is -32603); anything else is null, and
 * withheld by the caller.
 */
export function rpcAnswerOf(id: RpcId, status: number, value: unknown): Record<string, unknown> | null {
  if (status >= 200 && status < 300) return { jsonrpc: '2.0', id, result: value === undefined ? null : value };
  const e = isObj(value) && isObj(value.error) ? value.error : null;
  if (!e) return null;
  const info = Array.isArray(e.details) ? e.details.find((d) => isObj(d) && typeof d.reason === 'string' && typeof d.domain === 'string') : undefined;
  const code = (isObj(info) && rpcCodeOf(String(info.reason), String(info.domain))) || -32603;
  const message = typeof e.message === 'string' ? e.message.slice(0, 1024) : `HTTP ${status}`;
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** the first HTTP+JSON interface of A2A 1.0 a card declares (v0.3 REST interfaces are another shape, see above) */
export function restEndpoint(card: Record<string, unknown>): URL | null {
  if (!Array.isArray(card.supportedInterfaces)) return null;
  for (const i of card.supportedInterfaces as Array<Record<string, unknown>>) {
    if (i?.protocolBinding !== 'HTTP+JSON' || !String(i.protocolVersion ?? '').startsWith('1.')) continue;
    try {
      const u = new URL(String(i.url));
      if (u.protocol === 'http:' || u.protocol === 'https:') return u;
    } catch {
      // next candidate
    }
  }
  return null;
}
