import { defineProblem } from '../../core/errors.js';

/** Problems of the MCP proxy and its operator routes (HTTP level; tool denials are MCP results). */
export const McpProblems = {
  unknownServer: defineProblem('mcp_unknown_server', 404, 'Unknown MCP server'),
  agentRequired: defineProblem('mcp_agent_required', 401, 'Agent token required'),
  sessionNotFound: defineProblem('mcp_session_not_found', 404, 'MCP session not found'),
  sessionRequired: defineProblem('mcp_session_required', 400, 'Mcp-Session-Id required'),
  // GET: a Last-Event-ID that names no stream relayed on this session (never handed out, another's, ended or expired)
  streamNotFound: defineProblem('mcp_stream_not_found', 404, 'MCP event stream not found'),
  tooManyStreams: defineProblem('mcp_too_many_streams', 429, 'Too many open MCP event streams'),
  upstreamUnavailable: defineProblem('mcp_upstream_unavailable', 502, 'MCP server unavailable'),
  upstreamTimeout: defineProblem('mcp_upstream_timeout', 504, 'MCP server deadline exceeded'),
  upstreamProtocol: defineProblem('mcp_upstream_protocol', 502, 'MCP server broke the protocol'),
  // the MCP transport's DNS-rebinding answer: 403 to a Host or Origin the proxy does not serve
  hostNotAllowed: defineProblem('mcp_host_not_allowed', 403, 'Host not allowed'),
  originNotAllowed: defineProblem('mcp_origin_not_allowed', 403, 'Origin not allowed'),
  toolNotSeen: defineProblem('mcp_tool_not_seen', 404, 'Tool definition not seen'),
  staleHash: defineProblem('mcp_pin_stale', 409, 'Tool definition changed since it was reviewed'),
  findings: defineProblem('mcp_pin_findings', 409, 'Tool definition failed poisoning screening'),
  isApproved: defineProblem('mcp_pin_is_approved', 409, 'The definition is the approved one'),
  // the same code as the ops plugin's: one answer for "an operator's right" wherever it is asked
  notOperator: defineProblem('not_operator', 403, 'Forbidden'),
} as const;
