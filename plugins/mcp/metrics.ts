import type { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../../core/obs/metrics.js';

/**
 * Prometheus series of the MCP proxy. Labels stay bounded: `server` is a configured name, `method`
 * one of the MCP methods below or `other`, the rest are fixed enums.
 */
const METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
]);

export function methodLabel(method: unknown): string {
  if (method === undefined) return 'response';
  return typeof method === 'string' && METHODS.has(method) ? method : 'other';
}

export class McpMetrics {
  readonly requests: Counter<'server' | 'method'>;
  readonly toolCalls: Counter<'server' | 'decision' | 'reason'>;
  readonly definitionChanges: Counter<'server'>;
  readonly withheld: Counter<'server' | 'status'>;
  readonly pinEvents: Counter<'server' | 'kind'>;
  readonly answersWithheld: Counter<'server'>;
  readonly foreignRequests: Counter<'header'>;
  readonly stateFull: Counter<'server' | 'collection'>;
  readonly streams: Counter<'server' | 'outcome'>;
  readonly streamsOpen: Gauge<'server'>;
  readonly postsHeld: Counter<'server'>;

  constructor(m: Metrics) {
    this.requests = m.counter('svc_mcp_requests_total', 'JSON-RPC messages relayed to MCP servers, by server and method', ['server', 'method']);
    this.toolCalls = m.counter('svc_mcp_tool_calls_total', 'MCP tools/call decisions, by server, decision and reason', ['server', 'decision', 'reason']);
    this.definitionChanges = m.counter('svc_mcp_definition_changes_total', 'Tool definitions found changed since they were pinned', ['server']);
    this.withheld = m.counter('svc_mcp_tools_withheld_total', 'Tool definitions withheld from a tools/list answer, by status', ['server', 'status']);
    this.pinEvents = m.counter('svc_mcp_pin_events_total', 'Pin lifecycle events: new, poisoned, changed, duplicate, pinned_first_use, approved, rejected', ['server', 'kind']);
    this.answersWithheld = m.counter('svc_mcp_answers_withheld_total', 'Server answers withheld because they could not be parsed strictly or reviewed (the client got a JSON-RPC error)', ['server']);
    this.foreignRequests = m.counter('svc_mcp_foreign_requests_total', 'Requests to /mcp/{server} refused for a Host or Origin not allowed (DNS rebinding), by header', ['header']);
    this.streams = m.counter('svc_mcp_streams_total', 'GET /mcp/{server} by outcome: opened, resumed, too_many (the per-agent cap), unknown_id (a Last-Event-ID not handed out), refused (the server answered non-2xx or not a stream)', ['server', 'outcome']);
    this.streamsOpen = m.gauge('svc_mcp_streams_open', 'GET event streams relayed now, by server', ['server']);
    this.postsHeld = m.counter('svc_mcp_posts_held_total', "POSTs of a session held for its GET stream: until the server answered the GET being opened, or the one expected after initialized came or lapsed (500 ms); at most 2 s each, by server", ['server']);
    this.stateFull = m.counter('svc_mcp_state_full_total', 'Tool names a server listed past mcp.max_tools_per_server, left unrecorded (never offered nor callable), by collection', ['server', 'collection']);
  }
}
