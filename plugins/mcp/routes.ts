import { sha256Ref } from '../../core/json/canonical.js';
import { HttpError } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import type { AdminAudit } from '../auth/index.js';

import type { McpServer } from './config.js';
import { McpProblems } from './errors.js';
import type { McpMetrics } from './metrics.js';
import { refusal, type HostPolicy } from './origin.js';
import { ApproveError, type PinEvent, type Pins } from './pins.js';
import { relayDelete, relayPost, type RelayDeps } from './proxy.js';
import { relayGet, type StreamDeps } from './stream.js';
import { registerPolicyRoutes } from './policy-routes.js';
import { operatorOnly, serverOf } from './admin-access.js';
import { describe } from './policy.js';
import { mcpSettings } from './settings.js';

const S = (f: string) => `https://proofgate.dev/schemas/mcp/${f}.json`;
/** routes answering JSON or an SSE stream, as the MCP transport does */
export const MCP_MEDIA = 'application/json, text/event-stream';
const RELAY_PATH = '/mcp/:server';

export interface McpRouteDeps extends Omit<StreamDeps, 'onPinEvents'> {
  servers: Map<string, McpServer>;
  /** the Host and Origin values the relay routes answer to */
  hosts: HostPolicy;
  pins: Pins;
  metrics: McpMetrics;
  pinOnFirstUse: boolean;
}

const CONSTRAINT: Record<PinEvent['kind'], string> = {
  changed: 'mcp.pin.changed',
  poisoned: 'mcp.poisoning',
  new: 'mcp.pin.pending',
  pinned_first_use: 'mcp.pin.first_use',
  duplicate: 'mcp.pin.duplicate',
};
/** what the audit chain records: a definition the clients are kept from, not a routine pin */
const AUDITED = new Set<PinEvent['kind']>(['changed', 'poisoned', 'duplicate']);

export function registerMcpRoutes(app: App, d: McpRouteDeps): void {
  /**
   * What a tools/list noticed: every event is a metric; a changed, poisoned or duplicated definition is also an
   * entry in the organisation's audit chain of the agent whose listing revealed it. The entry's
   * request_hash commits to {server, tool, hash, previous_hash, pinned_hash}.
   */
  async function onPinEvents(ctx: RequestContext, events: PinEvent[]): Promise<void> {
    const chain = app.service('audit.chain');
    for (const e of events) {
      d.metrics.pinEvents.inc({ server: e.server, kind: e.kind });
      if (e.kind === 'changed') d.metrics.definitionChanges.inc({ server: e.server });
      const level = AUDITED.has(e.kind) ? 'warn' : 'info';
      ctx.log[level]({ event: `mcp.${e.kind}`, server: e.server, tool: e.tool, hash: e.hash, previous_hash: e.previous_hash, pinned_hash: e.pinned_hash, findings: e.findings.map((f) => f.constraint_id) }, `MCP tool definition ${e.kind}`);
      if (!AUDITED.has(e.kind)) continue;
      if (!chain || !ctx.principal) {
        ctx.log.error({ server: e.server, tool: e.tool }, 'MCP tool definition change not audited: no audit chain');
        continue;
      }
      try {
        await chain.append(ctx.principal.orgId, {
          route: ctx.routePath,
          method: ctx.method,
          key_id: ctx.principal.keyId ?? null,
          user_id: ctx.principal.userId ?? null,
          request_hash: sha256Ref({ server: e.server, tool: e.tool, hash: e.hash, previous_hash: e.previous_hash, pinned_hash: e.pinned_hash }),
          status: 'blocked',
          engine: 'mcp.pinning',
          http_status: 200,
          proof_ref: null,
          constraint_id: e.kind === 'poisoned' && e.findings[0] ? e.findings[0].constraint_id : CONSTRAINT[e.kind],
          raw_llm_output: null,
        });
      } catch (err) {
        // the definition is withheld either way; only the record of it is missing
        ctx.log.error({ err, server: e.server, tool: e.tool }, 'MCP tool definition change not audited');
      }
    }
  }
  const relay: StreamDeps = { ...d, onPinEvents };
  /** a foreign Host or Origin is refused before the body is read, and never forwarded */
  app.phase('gate', (ctx) => {
    if (ctx.route.plugin !== 'mcp' || ctx.routePath !== RELAY_PATH) return;
    const r = refusal(d.hosts, ctx.headers);
    if (!r) return;
    d.metrics.foreignRequests.inc({ header: r.header });
    throw new HttpError(r.header === 'host' ? McpProblems.hostNotAllowed : McpProblems.originNotAllowed, r.detail);
  });

  app.route({
    method: 'POST',
    path: RELAY_PATH,
    auth: 'agentToken',
    scope: 'verify:read',
    tags: ['mcp'],
    bodyLimit: app.settings(mcpSettings).max_body_bytes,
    produces: MCP_MEDIA,
    schema: { params: S('server.params'), body: S('message.body') },
    handler: (ctx) => relayPost(relay, ctx, serverOf(d.servers, ctx)),
  });

  app.route({
    method: 'GET',
    path: RELAY_PATH,
    auth: 'agentToken',
    scope: 'verify:read',
    tags: ['mcp'],
    produces: MCP_MEDIA,
    schema: { params: S('server.params') },
    handler: (ctx) => relayGet(relay, ctx, serverOf(d.servers, ctx)),
  });

  app.route({
    method: 'DELETE',
    path: RELAY_PATH,
    auth: 'agentToken',
    scope: 'verify:read',
    tags: ['mcp'],
    bodyType: 'none',
    produces: MCP_MEDIA,
    schema: { params: S('server.params') },
    handler: (ctx) => relayDelete(relay, ctx, serverOf(d.servers, ctx)),
  });

  app.route({
    method: 'GET',
    path: '/admin/mcp/servers',
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    schema: { response: S('servers.response') },
    handler: (ctx) => (operatorOnly(app, ctx), {
      body: {
        pin_on_first_use: d.pinOnFirstUse,
        servers: [...d.servers.values()].map((s) => ({ name: s.name, url: s.url.origin + s.url.pathname, path: `/mcp/${s.name}` })),
      },
    }),
  });

  app.route({
    method: 'GET',
    path: '/admin/mcp/servers/:server/tools',
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    schema: { params: S('server.params'), response: S('tools.response') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      const s = serverOf(d.servers, ctx);
      const [tools, policy] = await Promise.all([d.pins.list(s.name), d.policy.of(s.name)]);
      return { body: { server: s.name, tools: tools.map((x) => ({ ...x, policy: describe(policy, s.name, x) })) } };
    },
  });

  app.route({
    method: 'POST',
    path: '/admin/mcp/servers/:server/tools/:tool/approve',
    auth: 'apiKey',
    scope: 'admin:all',
    tags: ['mcp'],
    bodyLimit: 4096,
    schema: { params: S('tool.params'), body: S('approve.body'), response: S('pin.response') },
    async handler(ctx) {
      operatorOnly(app, ctx);
      const s = serverOf(d.servers, ctx);
      const b = (ctx.body ?? {}) as { hash?: string; accept_findings?: boolean };
      const audit = app.service('audit.admin');
      // an approval nobody can find later did not happen: refuse it when it cannot be audited
      if (audit) await audit.ready(ctx);
      let r;
      try {
        r = await d.pins.approve(s.name, ctx.params.tool, { hash: b.hash, acceptFindings: b.accept_findings, by: ctx.principal?.keyId ?? ctx.principal?.userId ?? 'operator' });
      } catch (err) {
        if (!(err instanceof ApproveError)) throw err;
        const def = err.kind === 'unknown' ? McpProblems.toolNotSeen : err.kind === 'stale' ? McpProblems.staleHash : McpProblems.findings;
        throw new HttpError(def, err.message, err.findings.length ? { extensions: { findings: err.findings } } : {});
      }
      if (audit) await audit.record(ctx, 'mcp.pin.approve');
      d.metrics.pinEvents.inc({ server: s.name, kind: 'approved' });
      ctx.log.info({ event: 'mcp.approved', server: s.name, tool: r.pin.tool, hash: r.pin.hash, previous_hash: r.previous_hash }, 'MCP tool definition approved');
      const p = r.pin;
      return { body: { server: p.server, tool: p.tool, hash: p.hash, previous_hash: r.previous_hash, approved_at: p.approved_at, approved_by: p.approved_by, accepted_findings: p.accepted_findings } };
    },
  });

  registerPolicyRoutes(app, d);
}
