import { RpcCodes } from './jsonrpc.js';

/**
 * A2A's HTTP+JSON errors beside their JSON-RPC codes: the status, the google.rpc status name and
 * the ErrorInfo a REST client reads. The proxy's REST binding (rest.ts) writes them; the upstream
 * leg to a REST-only peer (rest-peer.ts) reads a peer's back.
 */
export const PROBLEM_DOMAIN = 'proofgate.dev';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const A2A_DOMAIN = 'a2a-protocol.org';

/** REST errors: HTTP status, google.rpc status name, ErrorInfo reason and domain */
const ERRORS: Record<number, [number, string, string, string]> = {
  [RpcCodes.parseError]: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', A2A_DOMAIN],
  [RpcCodes.invalidRequest]: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', A2A_DOMAIN],
  [RpcCodes.invalidParams]: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS', A2A_DOMAIN],
  [RpcCodes.methodNotFound]: [501, 'UNIMPLEMENTED', 'UNSUPPORTED_OPERATION', A2A_DOMAIN],
  [RpcCodes.taskNotFound]: [404, 'NOT_FOUND', 'TASK_NOT_FOUND', A2A_DOMAIN],
  [-32002]: [400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE', A2A_DOMAIN],
  [-32003]: [400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED', A2A_DOMAIN],
  [-32004]: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION', A2A_DOMAIN],
  [-32005]: [400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED', A2A_DOMAIN],
  [-32006]: [500, 'INTERNAL', 'INVALID_AGENT_RESPONSE', A2A_DOMAIN],
  [-32007]: [400, 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', A2A_DOMAIN],
  [-32008]: [400, 'FAILED_PRECONDITION', 'EXTENSION_SUPPORT_REQUIRED', A2A_DOMAIN],
  [-32009]: [400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED', A2A_DOMAIN],
  [RpcCodes.blocked]: [403, 'PERMISSION_DENIED', 'MESSAGE_BLOCKED', PROBLEM_DOMAIN],
  [RpcCodes.notForwarded]: [403, 'PERMISSION_DENIED', 'MESSAGE_NOT_FORWARDED', PROBLEM_DOMAIN],
  [RpcCodes.senderUnknown]: [403, 'PERMISSION_DENIED', 'SENDER_UNKNOWN', PROBLEM_DOMAIN],
  [RpcCodes.peerUnavailable]: [502, 'UNAVAILABLE', 'PEER_UNAVAILABLE', PROBLEM_DOMAIN],
  [RpcCodes.unknownPeer]: [404, 'NOT_FOUND', 'UNKNOWN_PEER', PROBLEM_DOMAIN],
  [RpcCodes.answerWithheld]: [502, 'INTERNAL', 'ANSWER_WITHHELD', PROBLEM_DOMAIN],
  [RpcCodes.pushUrlRefused]: [403, 'PERMISSION_DENIED', 'PUSH_URL_REFUSED', PROBLEM_DOMAIN],
};

/** the JSON-RPC code of a REST error's ErrorInfo (reason and domain), the inverse of the table above */
export function rpcCodeOf(reason: string, domain: string): number | null {
  let code: number | null = null;
  // later rows win: INVALID_PARAMS is -32602, UNSUPPORTED_OPERATION -32004
  for (const [c, [, , r, d]] of Object.entries(ERRORS)) if (r === reason && d === domain) code = Number(c);
  return code;
}

/** the REST error body of a JSON-RPC error; the proxy's `error.data` (the verdict) rides in a second detail */
export function restError(e: { code?: unknown; message?: unknown; data?: unknown }): { status: number; body: Record<string, unknown> } {
  const code = typeof e.code === 'number' ? e.code : 0;
  const [status, name, reason, domain] = ERRORS[code] ?? [500, 'INTERNAL', 'INTERNAL_ERROR', A2A_DOMAIN];
  const details: unknown[] = [{ '@type': ERROR_INFO, reason, domain, metadata: { jsonrpc_code: String(code) } }];
  if (e.data !== undefined) details.push({ '@type': `https://${PROBLEM_DOMAIN}/schemas/a2a/rest-error-data.json`, data: e.data });
  return { status, body: { error: { code: status, status: name, message: typeof e.message === 'string' ? e.message : 'error', details } } };
}

