import type { App, Plugin } from '../../core/types.js';
import { A2A_SIGNER_SERVICE } from '../a2a/index.js';
import { Activity } from '../agents/index.js';
import { parseServers } from './config.js';
import { McpExpiry } from './expiry.js';
import { hostPolicy } from './origin.js';
import { Listings } from './listings.js';
import { McpMetrics } from './metrics.js';
import { PIN_FORM, Pins } from './pins.js';
import { Policies } from './policy.js';
import { Relist } from './relist.js';
import { registerRejectRoutes } from './reject-routes.js';
import { registerMcpRoutes } from './routes.js';
import { OpenStreams, StreamRecords } from './streams.js';
import { OpeningStreams } from './stream-order.js';
import { McpScreening } from './screening.js';
import { McpUpstreams } from './upstream.js';
import { mcpSettings } from './settings.js';

/** the worker module's version: its checks are part of what a pin and a verdict mean */
const MCP_ENGINE_VERSION = `pin-form-${PIN_FORM}`;

/**
 * MCP through the sidecar (docs/mcp.md): an MCP client talks Streamable HTTP to /mcp/{server};
 * proofgate authenticates the agent, relays the session, pins every tool definition by hash,
 * withholds what is not pinned, and gates every tools/call with the agents plugin's tool policy,
 * signing the calls it lets through. Needs the agents plugin (agent tokens) and the a2a plugin (the
 * verdict key); without the key, every call is denied.
 */
function register(app: App): void {
  const c = app.settings(mcpSettings);
  const servers = parseServers(c.servers, process.env);
  const hosts = hostPolicy(c, app.config.server);
  const metrics = new McpMetrics(app.metrics);
  // large listings and arguments are hashed and screened in the kernel's pool (screening.ts)
  const screening = new McpScreening(app.engine({ name: 'mcp', version: MCP_ENGINE_VERSION, module: new URL('./worker.js', import.meta.url) }));
  const pins = new Pins(app.store, c.pin_on_first_use, undefined, {
    maxTools: c.max_tools_per_server,
    // moved on often enough that a record still listed is never near the sweep's age
    listedEveryMs: Math.min(3_600_000, (c.state_ttl_seconds * 1000) / 4),
    check: screening.check,
    onFull(e) {
      metrics.stateFull.inc({ server: e.server, collection: e.collection }, e.refused);
      app.log.warn({ server: e.server, collection: e.collection, refused: e.refused, cap: e.cap }, 'mcp: server listed more tool names than mcp.max_tools_per_server; the new ones are neither recorded, offered nor callable');
    },
  });
  const expiry = new McpExpiry(app.store, c.session_ttl_seconds * 1000, Date.now, c.state_ttl_seconds * 1000);
  const upstreams = new McpUpstreams();
  app.onClose(() => upstreams.close());
  registerMcpRoutes(app, {
    servers,
    hosts,
    pins,
    screening,
    listings: new Listings(app.store),
    expiry,
    metrics,
    pinOnFirstUse: c.pin_on_first_use,
    timeoutMs: c.timeout_ms,
    streams: new StreamRecords(app.store),
    upstreams,
    openStreams: new OpenStreams(c.max_streams_per_agent),
    opening: new OpeningStreams(),
    streamMaxMs: c.stream_max_seconds * 1000,
    draining: app.draining,
    relist: new Relist(app.store),
    maxJsonDepth: app.config.server.max_json_depth,
    store: app.store,
    activity: new Activity(app.store),
    signer: () => app.service(A2A_SIGNER_SERVICE),
    policy: new Policies(app.store, new Map([...servers].map(([n, s]) => [n, s.policy]))),
  });
  registerRejectRoutes(app, { servers, metrics });
  startExpirySweeps(app, expiry);
  if (servers.size) app.log.info({ servers: [...servers.keys()], pin_on_first_use: c.pin_on_first_use }, 'mcp proxy configured');
}

/**
 * Expired sessions and stale listings go at start and every ten minutes, or every lifetime when
 * that is shorter, but not more than once a minute: the sweep bounds the store, and a request on
 * an expired session is refused by its own check whenever it comes.
 */
function startExpirySweeps(app: App, expiry: McpExpiry): void {
  const sweep = async () => {
    const removed = await expiry.sweep();
    if (removed) app.log.info({ removed }, 'mcp: expired sessions, listings, last-seen records and duplicate marks removed');
  };
  const everyMs = Math.min(600_000, Math.max(60_000, Math.min(expiry.ttlMs, expiry.stateTtlMs)));
  app.every(everyMs, sweep, { atStart: true, onError: (err) => app.log.warn({ err }, 'mcp: sweep of expired sessions failed; the next one tries again') });
}

const plugin: Plugin = {
  name: 'mcp',
  optional: [A2A_SIGNER_SERVICE],
  // used per request: audit registers after this plugin
  late: ['audit.chain', 'audit.admin'],
  settings: mcpSettings,
  register,
};
export default plugin;

export { definitionHash, pinnedPart, screenDefinition, type ToolDefinition } from './definitions.js';
export { Pins, PIN_COLLECTIONS, type DuplicateRecord, type PinRecord, type SeenRecord, type ToolStatus } from './pins.js';
export { VERDICT_META, DENIAL_META, VERDICT_ENGINE } from './gate.js';
export { parseServers, type McpServer } from './config.js';
export { parsePolicy, decide, globMatch, POLICY_COLLECTION, BUILTIN_POLICY, type ServerPolicy, type PolicyRule } from './policy.js';
export { SESSION_COLLECTION } from './expiry.js';
export { LISTING_COLLECTION } from './listings.js';
export { STREAM_COLLECTION } from './streams.js';
export { RELIST_COLLECTION } from './relist.js';
export { mcpScanCommand, mcpApproveCommand } from './cli.js';
export { scan, renderSarif, renderText, exitCode, RULES as SCAN_RULES, type ScanReport } from './scan.js';
