import type { App, Plugin } from '../../core/types.js';
import { SERVICES } from '../auth/index.js';
import { Activity } from './activity.js';
import { startActivityRetention } from './retention.js';
import { registerAgentRoutes } from './routes.js';
import { agentTokenAuthenticator, Agents } from './tokens.js';
import { agentsSettings } from './settings.js';

/**
 * AI agents: registration (`agent:write`), the `agentToken` authenticator (`X-Agent-Token`),
 * request screening (exfiltration, tool-definition poisoning), tool-call risk decisions and the
 * per-agent activity log. Tokens are digested by the auth plugin's key service, so this plugin
 * must be registered after auth.
 */
export const AGENT_SERVICE = 'agents.registry';

declare module '../../core/types.js' {
  interface Services {
    'agents.registry': Agents;
  }
}

const agents: Plugin = {
  name: 'agents',
  settings: agentsSettings,
  provides: [AGENT_SERVICE],
  needs: [SERVICES.keys],
  optional: [SERVICES.senderOwners],
  late: ['audit.admin', 'verifier.*'],
  register(app: App) {
    const keys = app.service(SERVICES.keys);
    if (!keys) throw new Error('agents: the auth plugin must be registered first (agent tokens are digested by its key service)');
    const registry = new Agents(app.store, (token) => keys.digest(token));
    const activity = new Activity(app.store);
    app.provide(AGENT_SERVICE, registry);
    // an agent registered in an organisation is that organisation's to speak as (issue 38)
    app.service(SERVICES.senderOwners)?.addSource('agents', (id) => registry.ownerOf(id));
    app.authenticator('agentToken', agentTokenAuthenticator(registry), (ctx) => ctx.headers['x-agent-token'] !== undefined);
    registerAgentRoutes(app, { agents: registry, activity });
    const days = app.settings(agentsSettings).activity_retention_days ?? null;
    if (days !== null) startActivityRetention(app, days);
  },
};

export default agents;

export { Agents, AGENT_TOKEN_PATTERN, AGENT_TOKEN_PREFIX, AGENT_TYPES, AGENT_COLLECTIONS, type AgentRecord } from './tokens.js';
export { publicJwkProblem, jwkAlgorithm, type AgentPublicJwk } from './public-jwk.js';
export { Activity, ACTIVITY_COLLECTION, type ActivityEntry } from './activity.js';
export { provisionAgent, revokeUndeclaredAgents, type DeclaredAgent } from './provision.js';
export { screenQuery, screenToolSchema, CONSTRAINTS as SCREENING_CONSTRAINTS, type Finding } from './screening.js';
export { evaluateTool, evaluateAdmitted, classifyTool, normaliseToolName, SAFE_TOOLS, DANGEROUS_TOOLS, type ToolEvaluation } from './tools.js';
