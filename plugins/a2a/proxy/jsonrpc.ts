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
} as const;

export type RpcKind = 'send' | 'stream' | 'get' | 'cancel';

/** v0.3 method names (issue 18) and the A2A v1.0 ones the official SDK speaks */
export const RPC_METHODS: Readonly<Record<string, RpcKind>> = {
  'message/send': 'send',
  SendMessage: 'send',
  'message/stream': 'stream',
  SendStreamingMessage: 'stream',
  'tasks/get': 'get',
  GetTask: 'get',
  'tasks/cancel': 'cancel',
  CancelTask: 'cancel',
};

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
  if (!r.params || typeof r.params !== 'object' || Array.isArray(r.params)) return { ok: false, reply: rpcError(id, RpcCodes.invalidParams, 'Invalid params: an object') };
  return { ok: true, req: { id, method: r.method, kind, params: r.params as Record<string, unknown> } };
}
