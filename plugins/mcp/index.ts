import type { App, Plugin } from '../../core/types.js';
import { startSweeps } from '../../core/store-prune.js';
import { A2A_SIGNER_SERVICE, type VerdictSigner } from '../a2a/index.js';
import { Activity } from '../agents/index.js';
import { parseServers } from './config.js';
import { McpExpiry } from './expiry.js';
import { Listings } from './listings.js';
import { McpMetrics } from './metrics.js';
import { Pins } from './pins.js';
import { registerMcpRoutes } from './routes.js';

/**
 * MCP through the sidecar (docs/mcp.md): an MCP client talks Streamable HTTP to /mcp/{server};
 * proofgate authenticates the agent, relays the session, pins every tool definition by hash,
 * withholds what is not pinned, and gates every tools/call with the agents plugin's tool policy,
 * signing the calls it lets through. Needs the agents plugin (agent tokens) and the a2a plugin (the
 * verdict key); without the key, every call is denied.
 */
function register(app: App): void {
  const c = app.config.mcp;
  const servers = parseServers(c.servers, process.env);
  const metrics = new McpMetrics(app.metrics);
  const pins = new Pins(app.store, c.pin_on_first_use);
  const expiry = new McpExpiry(app.store, c.session_ttl_seconds * 1000);
  registerMcpRoutes(app, {
    servers,
    pins,
    listings: new Listings(app.store),
    expiry,
    metrics,
    pinOnFirstUse: c.pin_on_first_use,
    timeoutMs: c.timeout_ms,
    maxJsonDepth: app.config.server.max_json_depth,
    store: app.store,
    activity: new Activity(app.store),
    signer: () => app.service<VerdictSigner | null>(A2A_SIGNER_SERVICE),
  });
  startExpirySweeps(app, expiry);
  if (servers.size) app.log.info({ servers: [...servers.keys()], pin_on_first_use: c.pin_on_first_use }, 'mcp proxy configured');
}

/**
 * Expired sessions and stale listings go at start and every ten minutes, or every lifetime when
 * that is shorter, but not more than once a minute: the sweep bounds the store, and a request on
 * an expired session is refused by its own check whenever it comes.
 */
function startExpirySweeps(app: App, expiry: McpExpiry): void {
  startSweeps({
    everyMs: Math.min(600_000, Math.max(60_000, expiry.ttlMs)),
    onClose: (fn) => app.onClose(fn),
    onError: (err) => app.log.warn({ err }, 'mcp: sweep of expired sessions failed; the next one tries again'),
    async sweep() {
      const removed = await expiry.sweep();
      if (removed) app.log.info({ removed }, 'mcp: expired sessions and listings removed');
    },
  });
}

const plugin: Plugin = { name: 'mcp', register };
export default plugin;

export { definitionHash, pinnedPart, screenDefinition, type ToolDefinition } from './definitions.js';
export { Pins, PIN_COLLECTIONS, type DuplicateRecord, type PinRecord, type SeenRecord, type ToolStatus } from './pins.js';
export { VERDICT_META, DENIAL_META, VERDICT_ENGINE } from './gate.js';
export { parseServers, type McpServer } from './config.js';
export { SESSION_COLLECTION } from './expiry.js';
export { LISTING_COLLECTION } from './listings.js';
export { mcpScanCommand, mcpApproveCommand } from './cli.js';
export { scan, renderSarif, renderText, exitCode, RULES as SCAN_RULES, type ScanReport } from './scan.js';
