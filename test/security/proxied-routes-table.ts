import type { Test } from 'tap';
import type { Plugin } from '../../core/types.js';
import type { Config, ConfigOverrides } from '../../core/config.js';
import health from '../../plugins/health/index.js';
import auth from '../../plugins/auth/index.js';
import agents from '../../plugins/agents/index.js';
import a2a from '../../plugins/a2a/index.js';
import audit from '../../plugins/audit/index.js';
import mcp from '../../plugins/mcp/index.js';
import { KEY_PEM } from '../helpers/a2a.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { registerAgent, tenant } from '../helpers/tenancy.js';
import { bodyAnswer, startHostileUpstream, type AnswerMaker, type HostileUpstream, type Received } from '../helpers/hostile-wire.js';

/**
 * The table of every route that proofgate verifies and then forwards (or tells a proxy to forward):
 * how to call it with a valid request, and what each hostile input must come to there. One server
 * carries them all, in front of one hostile upstream that plays the A2A peer (`/rpc`), the local
 * agent behind the inbound guard (`/inbound`), their card, and the MCP server (`/mcp`).
 */

/** a small body cap on every route, so that "past the cap" is cheap to send at every field */
export const LIMIT = 16 * 1024;
export const INVOICE = { claimed_total: '5.00', line_items: [{ description: 'pens', amount: '2.50', quantity: 2 }] };

/** What a route answers a refused request with. */
export interface Refusal {
  status: number;
  /** a JSON-RPC error code in the body (A2A's JSON-RPC routes answer HTTP 200 with one) */
  rpc?: number;
  /** a problem+json code */
  code?: string;
  /** the ErrorInfo reason of an HTTP+JSON error body */
  reason?: string;
}

export interface ProxiedRoute {
  name: string;
  family: 'a2a' | 'mcp';
  path: string;
  /** the credential and media headers of a valid call */
  headers: Record<string, string>;
  /** a valid request, forwarded (or allowed, or a `forwarded` verdict) as it is */
  valid(): Record<string, unknown>;
  /** the upstream path a forward of this route reaches; null: the route forwards nothing itself */
  upstream: string | null;
  /** a member named twice */
  duplicate: Refusal | 'one reading';
  /** NaN, Infinity, comments, trailing garbage: not JSON */
  notJson: Refusal;
  /** a body past the route's cap */
  tooLarge: Refusal;
  /** what a foreign Host / Origin comes to (each stated in the table) */
  foreignHost: Refusal | 'served as usual' | 'no receiver';
  foreignOrigin: Refusal | 'served as usual';
  /**
   * the peer/server answers non-2xx with a result: relayed as bytes (the A2A inbound guard reads no
   * answer), withheld (MCP), or reviewed (the A2A outbound proxy: read strictly, -32055 when it cannot be)
   */
  answers: 'relayed as bytes' | 'withheld' | 'reviewed' | null;
  /** the JSON-RPC method of a streamed call, when the route relays an event stream */
  streamMethod: string | null;
  /** A2A's HTTP+JSON binding: errors are HTTP statuses with a google.rpc body, results bare */
  binding?: 'rest';
  /** the REST path of the streamed form of the call (message:stream) */
  streamPath?: string;
  /** the status of a success, when not 200 (a created push config: 201) */
  okStatus?: number;
  /** forwarded without a verdict header: not a message (a push config) */
  noVerdict?: true;
}

/** the id the upstream's answer must carry: the request's own, or 1 for a REST call restated as JSON-RPC */
export const upstreamId = (route: ProxiedRoute, valid: Record<string, unknown>): unknown => (route.binding === 'rest' ? 1 : valid.id);

/** a task the harness's agent owns (recorded at start-up), for the routes that name one */
export const OWN_TASK = 't-own';
export const PUSH_URL = 'https://93.184.215.14/hooks/a2a';

const MESSAGE = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: INVOICE }] };
const send = (method = 'SendMessage') => ({ jsonrpc: '2.0', id: 'r-1', method, params: { message: structuredClone(MESSAGE) } });

/** A small A2A v1.0 card, served by the hostile peer (unsigned, which the proxy accepts by default). */
function card(url: string): Record<string, unknown> {
  return {
    name: 'ledger',
    description: 'books invoices',
    supportedInterfaces: [{ url: `${url}rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'book', name: 'book', description: 'books invoices', tags: ['finance'] }],
  };
}

export const a2aResult = (id: unknown) => ({ jsonrpc: '2.0', id, result: { message: { messageId: 'a-1', role: 'ROLE_AGENT', parts: [{ text: 'booked' }] } } });
export const mcpResult = (id: unknown) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'sunny' }] } });
export const GET_WEATHER = { name: 'get_weather', description: 'Current weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };

export interface Harness {
  s: TestServer;
  /** the organisation of the routes' credential (its owner's session, an admin key) and its agent */
  org: { token: string; key: string };
  agentId: string;
  up: HostileUpstream;
  routes: ProxiedRoute[];
  /** the answer of the next upstream request to `path` (reset to the default after each use) */
  answerNext(path: string, make: (r: Received) => AnswerMaker): void;
  /** drops answers set and not used */
  clearAnswers(): void;
  /** requests the upstream received on a route's path since `mark` */
  receivedSince(mark: number, path: string | null): Received[];
}

function defaultAnswer(up: () => string, r: Received): AnswerMaker {
  const m = r.json;
  if (r.method === 'GET') return bodyAnswer(JSON.stringify(card(up())));
  if (r.url.startsWith('/mcp')) {
    if (m?.method === 'initialize') return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } } }));
    if (m?.id === undefined) return (res) => void res.writeHead(202).end();
    if (m.method === 'tools/list') return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [GET_WEATHER] } }));
    if (m.method === 'tools/call') return bodyAnswer(JSON.stringify(mcpResult(m.id)));
    return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
  }
  // task methods answered for the task they name (the review checks it is the caller's)
  const config = { taskId: m?.params?.taskId, id: 'cfg', url: PUSH_URL };
  const task = { id: m?.params?.id, contextId: 'c-own', status: { state: 'TASK_STATE_COMPLETED' } };
  const results: Record<string, unknown> = { GetTask: task, CancelTask: task, CreateTaskPushNotificationConfig: config, GetTaskPushNotificationConfig: config, ListTaskPushNotificationConfigs: { configs: [config] }, DeleteTaskPushNotificationConfig: null };
  if (typeof m?.method === 'string' && Object.hasOwn(results, m.method)) return bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: results[m.method] }));
  return bodyAnswer(JSON.stringify(a2aResult(m?.id ?? null)));
}

export async function startHarness(t: Test): Promise<Harness> {
  const next = new Map<string, (r: Received) => AnswerMaker>();
  let upUrl = '';
  const up = await startHostileUpstream((r) => {
    const path = r.url.split('?')[0];
    const make = next.get(path);
    next.delete(path);
    return make ? make(r) : defaultAnswer(() => upUrl, r);
  });
  upUrl = up.url;
  t.teardown(() => up.close());
  const plugins: Plugin[] = [health, auth, agents, a2a, mcp, audit];
  const s = await startServer({
    plugins,
    config: {
      auth: { anonymous_rate_per_minute: 1_000_000 },
      limits: { plans: { free: { per_minute: null, per_day: null } } },
      a2a: {
        deployment_id: 'harness',
        signing_key_pem: KEY_PEM,
        default_allow: true,
        // claim-only (allowed on the loopback bind): the inbound guard then verifies an unvouched
        // message instead of blocking every one, so that a forward is possible and can be watched
        sender_auth: 'off',
        max_payload_size_bytes: LIMIT,
        max_requests_per_minute: 1_000_000,
        peers: { h: `${up.url}rpc` },
        inbound: { target: `${up.url}inbound`, agent_id: 'local' },
        proxy: { timeout_ms: 5000, connect_timeout_ms: 1000 },
      },
      mcp: { servers: { h: `${up.url}mcp` }, pin_on_first_use: true, timeout_ms: 5000, max_body_bytes: LIMIT },
    } as ConfigOverrides,
  });
  t.teardown(() => s.close());
  const org = await tenant(s, ['verify:read', 'agent:write']);
  const agent = await registerAgent(s, org.key, { name: 'buyer' });
  const token = { 'x-agent-token': agent.agent_token, 'content-type': 'application/json' };
  const rpc = { ...token, 'a2a-version': '1.0' };

  // get_weather is pinned on first use by one clean listing, so a tools/call of it is gated and forwarded
  const listed = await s.request('POST', '/mcp/h', { headers: { ...token, accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
  if (listed.body?.result?.tools?.[0]?.name !== 'get_weather') throw new Error(`harness: get_weather was not pinned: ${listed.text}`);

  // a task of the agent's: the peer's answer to a send names it, so the proxy records it as the agent's
  next.set('/rpc', (r) => bodyAnswer(JSON.stringify({ jsonrpc: '2.0', id: r.json?.id, result: { task: { id: OWN_TASK, contextId: 'c-own', status: { state: 'TASK_STATE_COMPLETED' } } } })));
  const owned = await s.request('POST', '/a2a/peers/h', { headers: rpc, body: send() });
  if (owned.body?.result?.task?.id !== OWN_TASK) throw new Error(`harness: the agent's task was not created: ${owned.text}`);

  const a2aRest = { binding: 'rest', notJson: { status: 400, code: 'invalid_json' }, tooLarge: { status: 413 }, duplicate: { status: 400, reason: 'INVALID_PARAMS' }, foreignHost: 'served as usual', foreignOrigin: 'served as usual' } as const;
  const a2aRpc = { notJson: { status: 400, code: 'invalid_json' }, tooLarge: { status: 413 }, duplicate: { status: 200, rpc: -32600 } } as const;
  const routes: ProxiedRoute[] = [
    {
      name: 'POST /a2a/intercept',
      family: 'a2a',
      path: '/a2a/intercept',
      headers: token,
      valid: () => ({ sender_agent_id: agent.agent_id, receiver_agent_id: 'h', payload_type: 'financial_transaction', payload: { data: structuredClone(INVOICE) }, timestamp: '2026-11-23T01:00:00Z' }),
      upstream: null,
      duplicate: { status: 400, code: 'invalid_json' },
      notJson: { status: 400, code: 'invalid_json' },
      tooLarge: { status: 413 },
      foreignHost: 'served as usual',
      foreignOrigin: 'served as usual',
      answers: null,
      streamMethod: null,
    },
    { name: 'POST /a2a/peers/{peer}', family: 'a2a', path: '/a2a/peers/h', headers: rpc, valid: () => send(), upstream: '/rpc', ...a2aRpc, foreignHost: 'served as usual', foreignOrigin: 'served as usual', answers: 'reviewed', streamMethod: 'SendStreamingMessage' },
    { name: 'POST /a2a/inbound', family: 'a2a', path: '/a2a/inbound', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, valid: () => send(), upstream: '/inbound', ...a2aRpc, foreignHost: 'served as usual', foreignOrigin: 'served as usual', answers: 'relayed as bytes', streamMethod: 'SendStreamingMessage' },
    {
      name: 'POST /a2a/peers/{peer}/message:send (HTTP+JSON)',
      family: 'a2a',
      path: '/a2a/peers/h/message:send',
      headers: rpc,
      valid: () => ({ message: structuredClone(MESSAGE) }),
      upstream: '/rpc',
      ...a2aRest,
      answers: 'reviewed',
      streamMethod: 'SendStreamingMessage',
      streamPath: '/a2a/peers/h/message:stream',
    },
    {
      name: 'POST /a2a/peers/{peer}/tasks/{id}/pushNotificationConfigs (HTTP+JSON)',
      family: 'a2a',
      path: `/a2a/peers/h/tasks/${OWN_TASK}/pushNotificationConfigs`,
      headers: rpc,
      valid: () => ({ id: 'cfg', url: PUSH_URL, token: 'secret' }),
      upstream: '/rpc',
      ...a2aRest,
      okStatus: 201,
      noVerdict: true,
      answers: null,
      streamMethod: null,
    },
    {
      name: 'POST /ext-authz/{path}',
      family: 'a2a',
      path: '/ext-authz/rpc',
      headers: { ...token, 'x-a2a-receiver': 'h' },
      valid: () => send(),
      upstream: null,
      duplicate: { status: 400, code: 'invalid_json' },
      notJson: { status: 400, code: 'invalid_json' },
      tooLarge: { status: 413 },
      foreignHost: 'no receiver',
      foreignOrigin: 'served as usual',
      answers: null,
      streamMethod: null,
    },
    {
      name: 'POST /mcp/{server}',
      family: 'mcp',
      path: '/mcp/h',
      headers: { ...token, accept: 'application/json, text/event-stream' },
      valid: () => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_weather', arguments: { city: 'Paris' } } }),
      upstream: '/mcp',
      duplicate: 'one reading',
      notJson: { status: 400, code: 'invalid_json' },
      tooLarge: { status: 413 },
      foreignHost: { status: 403, code: 'mcp_host_not_allowed' },
      foreignOrigin: { status: 403, code: 'mcp_origin_not_allowed' },
      answers: 'withheld',
      streamMethod: 'tools/call',
    },
  ];
  return {
    s,
    org: { token: org.token, key: org.key },
    agentId: agent.agent_id,
    up,
    routes,
    answerNext: (path, make) => void next.set(path, make),
    clearAnswers: () => next.clear(),
    receivedSince: (mark, path) => (path === null ? [] : up.received.slice(mark).filter((r) => r.url.split('?')[0] === path)),
  };
}

/** Every string member of a value, by path (the walk the oversized-field class replaces in turn). */
export function stringPaths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof v === 'string') return [at];
  if (Array.isArray(v)) return v.flatMap((x, i) => stringPaths(x, [...at, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => stringPaths(x, [...at, k]));
  return [];
}

export function withAt(v: Record<string, unknown>, path: Array<string | number>, value: unknown): Record<string, unknown> {
  const copy = structuredClone(v);
  let o: any = copy;
  for (const k of path.slice(0, -1)) o = o[k];
  o[path[path.length - 1]] = value;
  return copy;
}
