/**
 * What an MCP server may send its client unasked, on any stream (a POST's answer, the standalone
 * GET stream, a resumed one), by method: the server-to-client requests and notifications of MCP
 * 2025-06-18 and 2025-11-25. Anything else is dropped, not relayed: a method proofgate does not
 * know is one it has not reviewed (fail closed), and a client would answer it "method not found"
 * anyway. docs/mcp.md lists each with what the proxy does with it. Pure: the worker reviews large
 * events with it too.
 */

/** requests a server sends its client: each needs an id */
export const SERVER_REQUESTS: ReadonlySet<string> = new Set([
  'ping',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  // 2025-11-25 tasks run either way: a server polls a task the client runs for it
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
]);

/** notifications a server sends its client: none has an id */
export const SERVER_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/elicitation/complete',
  'notifications/tasks/status',
]);

export const LIST_CHANGED = 'notifications/tools/list_changed';
/** the `_meta` member of a tools/call result that carries the verdict letting the call through: only proofgate writes it */
export const VERDICT_META = 'dev.proofgate/verdict';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isId = (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * A dropped server request with an id the server can match: the proxy answers it in the client's
 * stead (stream.ts), as a client answers a method it does not know, so the server does not wait.
 */
export interface Refusal {
  id: string | number;
  code: number;
  message: string;
}

/**
 * The message as relayed, or undefined to drop it: a known method in its form (a request with an
 * id, a notification without one, params an object when present), without a verdict of the
 * server's own making. A tools/list_changed is relayed and noted in `s.listChanged`; a dropped
 * request with a usable id is noted in `s.refused`.
 */
export function reviewServerMessage(m: Record<string, unknown>, s: { listChanged?: boolean; refused?: Refusal[] }): Record<string, unknown> | undefined {
  const method = m.method as string;
  const hasId = Object.hasOwn(m, 'id');
  const refuse = (code: number, why: string) => {
    if (hasId && isId(m.id)) (s.refused ??= []).push({ id: m.id as string | number, code, message: `proofgate did not relay ${JSON.stringify(method.slice(0, 64))} to the client: ${why}` });
    return undefined;
  };
  if (SERVER_REQUESTS.has(method)) {
    if (!hasId || !isId(m.id)) return undefined;
  } else if (SERVER_NOTIFICATIONS.has(method)) {
    if (hasId) return refuse(-32600, 'a notification has no id');
  } else return refuse(-32601, 'not a method an MCP server sends its client');
  if (m.params !== undefined && !isObject(m.params)) return refuse(-32602, 'params is not an object');
  if (method === LIST_CHANGED) s.listChanged = true;
  const meta = (m.params as Record<string, unknown> | undefined)?._meta;
  if (isObject(meta) && Object.hasOwn(meta, VERDICT_META)) {
    const { [VERDICT_META]: _dropped, ...rest } = meta;
    return { ...m, params: { ...(m.params as Record<string, unknown>), _meta: rest } };
  }
  return m;
}
