import { defineProblem } from '../../core/errors.js';

/** Problems of the MCP proxy and its operator routes (HTTP level; tool denials are MCP results). */
export const McpProblems = {
  unknownServer: defineProblem('mcp_unknown_server', 404, 'Unknown MCP server'),
  agentRequired: defineProblem('mcp_agent_required', 401, 'Agent token required'),
  sessionNotFound: defineProblem('mcp_session_not_found', 404, 'MCP session not found'),
  sessionRequired: defineProblem('mcp_session_required', 400, 'Mcp-Session-Id required'),
  upstreamUnavailable: defineProblem('mcp_upstream_unavailable', 502, 'MCP server unavailable'),
  upstreamTimeout: defineProblem('mcp_upstream_timeout', 504, 'MCP server deadline exceeded'),
  upstreamProtocol: defineProblem('mcp_upstream_protocol', 502, 'MCP server broke the protocol'),
  toolNotSeen: defineProblem('mcp_tool_not_seen', 404, 'Tool definition not seen'),
  staleHash: defineProblem('mcp_pin_stale', 409, 'Tool definition changed since it was reviewed'),
  findings: defineProblem('mcp_pin_findings', 409, 'Tool definition failed poisoning screening'),
  // the same code as the ops plugin's: one answer for "an operator's right" wherever it is asked
  notOperator: defineProblem('not_operator', 403, 'Forbidden'),
} as const;
