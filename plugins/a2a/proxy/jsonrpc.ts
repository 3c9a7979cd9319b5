import { repeatedKeyError } from '../../../core/http/body.js';
import type { Reply } from '../../../core/types.js';

/**
 * The JSON-RPC 2.0 envelope of A2A, as far as the proxy needs it: which method (A2A v0.3 names and
 * their v1.0 equivalents), the request id, and the error replies. Errors are HTTP 200 with a
 * JSON-RPC `error`, as A2A clients expect; the codes below -32000 are the proxy's own
 * (docs/a2a-proxy.md), outside the range A2A reserves (-32001 … -32009).
 */
export const RpcCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  /** the verdict blocked the message (guard, trust boundary, unauthenticated sender, error) */
  blocked: -32050,
  /** the verdict is one the forwarding policy does not pass (unverifiable, heuristic_pass) */
  notForwarded: -32051,
  /** no sender id could be named for the credential */
  senderUnknown: -32052,
  /** the peer could not be reached, timed out, or its card failed verification */
  peerUnavailable: -32053,
  /** no peer is configured under this receiver id */
  unknownPeer: -32054,
  /** the peer's answer was withheld: it names a task another caller owns, or cannot be read */
  answerWithheld: -32055,
  /** a push-notification URL outside https, the egress allowlist, or resolving into a refused range */
  pushUrlRefused: -32056,
  /** A2A's TaskNotFoundError: also the answer for another caller's task, so its existence does not leak */
  taskNotFound: -32001,
} as const;

export type RpcKind =
  | 'send'
  | 'stream'
  | 'get'
  | 'cancel'
  | 'list'
  | 'subscribe'
  | 'push_set'
  | 'push_get'
  | 'push_list'
  | 'push_delete'
  | 'extended_card';

/** every A2A 1.0 JSON-RPC method and its v0.3 name (the SDK's compat layer speaks both) */
export const RPC_METHODS: Readonly<Record<string, RpcKind>> = {
  SendMessage: 'send',
  'message/send': 'send',
  SendStreamingMessage: 'stream',
  'message/stream': 'stream',
  GetTask: 'get',
  'tasks/get': 'get',
  CancelTask: 'cancel',
  'tasks/cancel': 'cancel',
  ListTasks: 'list',
  SubscribeToTask: 'subscribe',
  'tasks/resubscribe': 'subscribe',
  CreateTaskPushNotificationConfig: 'push_set',
  'tasks/pushNotificationConfig/set': 'push_set',
  GetTaskPushNotificationConfig: 'push_get',
  'tasks/pushNotificationConfig/get': 'push_get',
  ListTaskPushNotificationConfigs: 'push_list',
  'tasks/pushNotificationConfig/list': 'push_list',
  DeleteTaskPushNotificationConfig: 'push_delete',
  'tasks/pushNotificationConfig/delete': 'push_delete',
  GetExtendedAgentCard: 'extended_card',
  'agent/getAuthenticatedExtendedCard': 'extended_card',
};

/** the kinds whose answer is an SSE stream */
export const STREAMING: ReadonlySet<RpcKind> = new Set(['stream', 'subscribe']);

/** a v0.3 name (slash-separated): its params and results have the v0.3 shapes */
export const isLegacy = (method: string): boolean => method.includes('/');

export type RpcId = string | number | null;

export interface RpcRequest {
  id: RpcId;
  method: string;
  kind: RpcKind;
  params: Record<string, unknown>;
}

export type ParsedRpc = { ok: true; req: RpcRequest } | { ok: false; reply: Reply };

export function rpcError(id: RpcId, code: number, message: string, data?: unknown, headers: Record<string, string> = {}): Reply {
  return {
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
    body: { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } },
  };
}

/**
 * -32600 for a body that names one member twice: the proxy reads the last `"method"` or `"parts"`,
 * a peer may read the first, and the bytes are forwarded as they came. Checked before the request
 * is read at all; the id is not echoed, it may be one of the repeated members.
 */
export function repeatedKeyReply(raw: Buffer | null): Reply | null {
  const err = repeatedKeyError(raw);
  return err ? rpcError(null, RpcCodes.invalidRequest, `Invalid Request: ${err.detail}`) : null;
}

/** `body`: the request as the kernel parsed it, or raw bytes */
export function parseRpc(body: unknown): ParsedRpc {
  let v: unknown = body;
  if (Buffer.isBuffer(body)) {
    try {
      v = JSON.parse(body.toString('utf8'));
    } catch {
      return { ok: false, reply: rpcError(null, RpcCodes.parseError, 'Parse error') };
    }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, reply: rpcError(null, RpcCodes.invalidRequest, 'Invalid Request: one JSON-RPC request object (batches are not proxied)') };
  const r = v as Record<string, unknown>;
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return { ok: false, reply: rpcError(id, RpcCodes.invalidRequest, 'Invalid Request') };
  const kind = Object.hasOwn(RPC_METHODS, r.method) ? RPC_METHODS[r.method] : undefined;
  if (!kind) return { ok: false, reply: rpcError(id, RpcCodes.methodNotFound, `Method not found: the proxy passes ${Object.keys(RPC_METHODS).join(', ')}`) };
  // GetExtendedAgentCard is the one method A2A lets go without params
  if (kind === 'extended_card' && r.params === undefined) return { ok: true, req: { id, method: r.method, kind, params: {} } };
  if (!r.params || typeof r.params !== 'object' || Array.isArray(r.params)) return { ok: false, reply: rpcError(id, RpcCodes.invalidParams, 'Invalid params: an object') };
  return { ok: true, req: { id, method: r.method, kind, params: r.params as Record<string, unknown> } };
}
