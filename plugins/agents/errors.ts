import { defineProblem } from '../../core/errors.js';

/** Problems raised by agent registration, agent-token authentication and request screening. */
export const AgentProblems = {
  invalidAgentToken: defineProblem('invalid_agent_token', 401, 'Invalid agent token'),
  agentMismatch: defineProblem('agent_token_mismatch', 403, 'Agent token does not belong to this agent'),
  agentNotFound: defineProblem('agent_not_found', 404, 'Agent not found'),
  exfiltration: defineProblem('agent_exfiltration_blocked', 403, 'Agent payload flagged for exfiltration'),
  poisoning: defineProblem('agent_tool_poisoning_blocked', 403, 'Tool definition flagged'),
  permissionDenied: defineProblem('agent_permission_denied', 403, 'Agent lacks the permission'),
  unknownEngine: defineProblem('agent_unknown_engine', 400, 'Unknown engine'),
  invalidCursor: defineProblem('agent_invalid_cursor', 400, 'Invalid cursor'),
} as const;
