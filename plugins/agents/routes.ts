import { clipText, sha256Ref } from '../../core/json/canonical.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext, Verifier } from '../../core/types.js';
import { unverifiable } from '../../core/verdict.js';
import { Activity, DEFAULT_PAGE } from './activity.js';
import { AgentProblems } from './errors.js';
import { collectStrings, QUERY_CHECKS, SCHEMA_CHECKS, screenQuery, screenToolSchema, type Finding } from './screening.js';
import { publicJwkProblem, type AgentPublicJwk } from './public-jwk.js';
import { AGENT_SLOT, publicAgent, type AgentRecord, type Agents, type AgentType } from './tokens.js';
import { evaluateTool } from './tools.js';


const S = (f: string) => `https://proofgate.dev/schemas/agents/${f}.json`;
export const SCREENING_ENGINE = 'agents.screening';
/** an activity entry keeps the start of the intent, cut by clipText: never half a character */
const INTENT_MAX_CHARS = 200;

export interface RouteDeps {
  agents: Agents;
  activity: Activity;
}

interface RegisterBody {
  name: string;
  agent_type: AgentType;
  description?: string;
  permissions?: string[];
  max_cost_per_day?: number;
  public_jwk?: AgentPublicJwk;
}

interface ActionContext {
  intent: string;
  requested_by: string;
  session_id?: string;
}

interface VerifyBody {
  query: string;
  tool_schema?: Record<string, unknown> | unknown[];
  action_context: ActionContext;
  engine?: string;
  engine_input?: Record<string, unknown>;
}

/** The loaded engines an agent may be granted: every `verifier.<engine>` service. */
function knownEngine(app: App, name: string): boolean {
  return app.service(`verifier.${name}`) !== undefined;
}

/** The authenticated agent: the agentToken authenticator left its record in the request's slot. */
function agentOf(ctx: RequestContext): AgentRecord {
  const rec = ctx.get(AGENT_SLOT);
  if (!rec || ctx.principal?.agentId !== rec.agent_id) throw new HttpError(Problems.unauthorized, 'no agent credential');
  return rec;
}

function advisory(checks: ReadonlyArray<{ name: string; constraint_id: string }>, findings: Finding[]) {
  return checks.map((c) => {
    const hit = findings.filter((f) => f.constraint_id === c.constraint_id);
    return {
      name: c.name,
      advisory_only: true,
      constraint_id: c.constraint_id,
      passed: hit.length === 0,
      details: hit.length ? hit.map((f) => f.details).join('; ') : 'no pattern matched',
    };
  });
}

/**
 * Registering and deleting agents are entries of the organisation's audit chain (issue 12): the
 * chain must be writable before acting (503 otherwise); a failed append after the act is logged.
 */
async function auditReady(app: App, ctx: RequestContext): Promise<void> {
  await app.service('audit.admin')?.ready(ctx);
}

async function auditRecord(app: App, ctx: RequestContext, action: string, agentId: string): Promise<void> {
  try {
    await app.service('audit.admin')?.record(ctx, action, `agent:${agentId}`);
  } catch (err) {
    ctx.log.error({ err, action, agent_id: agentId }, 'agent change done but not audited');
  }
}

export function registerAgentRoutes(app: App, d: RouteDeps): void {
  app.route({
    method: 'POST',
    path: '/agents/register',
    auth: 'apiKey',
    scope: 'agent:write',
    tags: ['agents'],
    schema: { body: S('register.body'), response: S('registered.response') },
    async handler(ctx) {
      const b = ctx.body as RegisterBody;
      const permissions = b.permissions ?? [];
      const errors = permissions
        .map((p, i) => ({ p, i }))
        .filter(({ p }) => !knownEngine(app, p))
        .map(({ p, i }) => ({ field: `/body/permissions/${i}`, message: `unknown engine ${JSON.stringify(p)}` }));
      if (errors.length) throw new HttpError(Problems.validation, 'permissions must name loaded verification engines', { errors });
      const jwkProblem = b.public_jwk === undefined ? null : publicJwkProblem(b.public_jwk);
      if (jwkProblem) throw new HttpError(Problems.validation, `public_jwk ${jwkProblem}`, { errors: [{ field: '/body/public_jwk', message: jwkProblem }] });
      const p = ctx.principal!;
      await auditReady(app, ctx);
      const { record, token } = await d.agents.register({
        orgId: p.orgId,
        keyId: p.keyId ?? null,
        name: b.name,
        agentType: b.agent_type,
        description: b.description ?? null,
        permissions,
        maxCostPerDay: b.max_cost_per_day ?? null,
        publicJwk: b.public_jwk,
      });
      await d.activity.record(record.agent_id, { action: 'registered', outcome: 'done' });
      await auditRecord(app, ctx, 'agent.register', record.agent_id);
      return { status: 201, body: { ...publicAgent(record), agent_token: token } };
    },
  });

  app.route({
    method: 'DELETE',
    path: '/agents/:agent_id',
    auth: 'apiKey',
    scope: 'agent:write',
    tags: ['agents'],
    schema: { params: S('agent-id.params'), response: S('revoked.response') },
    async handler(ctx) {
      await auditReady(app, ctx);
      const rec = await d.agents.revoke(ctx.principal!.orgId, ctx.params.agent_id);
      if (!rec) throw new HttpError(AgentProblems.agentNotFound, 'no active agent with this id in your organisation');
      await d.activity.record(rec.agent_id, { action: 'revoked', outcome: 'done' });
      await auditRecord(app, ctx, 'agent.delete', rec.agent_id);
      return { body: { agent_id: rec.agent_id, revoked_at: rec.revoked_at } };
    },
  });

  app.route({
    method: 'POST',
    path: '/agents/:agent_id/verify',
    auth: 'agentToken',
    scope: 'verify:read',
    tags: ['agents'],
    verification: { attest: false },
    // the detectors are linear, but they run on the event loop: keep one request's text bounded
    bodyLimit: 256 * 1024,
    schema: { params: S('agent-id.params'), body: S('verify.body'), response: S('verify.response') },
    async handler(ctx) {
      const agent = agentOf(ctx);
      const b = ctx.body as VerifyBody;
      const base = { action: 'verify' as const, query_hash: sha256Ref(b.query), intent: clipText(b.action_context.intent, INTENT_MAX_CHARS) };
      if (b.engine !== undefined && b.engine_input === undefined) {
        throw new HttpError(Problems.validation, 'engine_input is required with engine', { errors: [{ field: '/body/engine_input', message: 'required with engine' }] });
      }
      // (1) exfiltration: always, over the query and anything passed on to an engine
      // every string: the body cap and the kernel's depth cap bound the walk, and the detectors run once over the text
      const screened = b.engine_input ? `${b.query}\n${collectStrings(b.engine_input, [], { nodes: Infinity }).join('\n')}` : b.query;
      const exfil = screenQuery(screened);
      // (2) poisoning: only when a tool definition came along
      const poison = b.tool_schema !== undefined ? screenToolSchema(b.tool_schema) : [];
      const first = exfil[0] ?? poison[0];
      if (first) {
        await d.activity.record(agent.agent_id, { ...base, outcome: 'blocked', constraint_id: first.constraint_id });
        const def = exfil.length ? AgentProblems.exfiltration : AgentProblems.poisoning;
        const err = new HttpError(def, first.details, {
          constraintId: first.constraint_id,
          extensions: { findings: [...exfil, ...poison].map((f) => ({ constraint_id: f.constraint_id, details: f.details })) },
          // a block, not a failure: the audit chain records it as blocked and raises injection_blocked
          policyBlock: true,
        });
        throw err;
      }
      const checks = [...advisory(QUERY_CHECKS, exfil), ...(b.tool_schema !== undefined ? advisory(SCHEMA_CHECKS, poison) : [])];

      if (b.engine !== undefined) {
        if (!agent.permissions.includes(b.engine)) {
          await d.activity.record(agent.agent_id, { ...base, outcome: 'blocked', constraint_id: 'agents.permission' });
          throw new HttpError(AgentProblems.permissionDenied, `this agent is not permitted to use the ${b.engine} engine`, { constraintId: 'agents.permission', policyBlock: true });
        }
        const verifier = app.service(`verifier.${b.engine}`);
        if (!verifier) throw new HttpError(AgentProblems.unknownEngine, `no ${b.engine} engine is loaded`);
        const result = await verifier.verify(b.engine_input!, { signal: ctx.signal, principal: ctx.principal });
        await d.activity.record(agent.agent_id, { ...base, outcome: 'passed', constraint_id: null });
        return { verdict: result, subject: { engine: b.engine }, body: { agent_id: agent.agent_id, engine: b.engine, screening: checks } };
      }

      await d.activity.record(agent.agent_id, { ...base, outcome: 'passed', constraint_id: null });
      const fields = { engine: SCREENING_ENGINE, agent_id: agent.agent_id, advisory_checks: checks };
      const msg = 'No exfiltration or tool-poisoning pattern matched. These checks are heuristics, so the request is admitted but nothing is proven.';
      return { verdict: unverifiable(msg, fields, 'ADMIT'), subject: { engine: SCREENING_ENGINE } };
    },
  });

  app.route({
    method: 'POST',
    path: '/agents/:agent_id/tools/:tool',
    auth: 'agentToken',
    scope: 'verify:read',
    tags: ['agents'],
    bodyLimit: 64 * 1024,
    schema: { params: S('tool.params'), body: S('tool.body'), response: S('tool.response') },
    async handler(ctx) {
      const agent = agentOf(ctx);
      const b = (ctx.body ?? {}) as { arguments?: Record<string, unknown>; action_context?: { intent?: string } };
      const ev = evaluateTool(ctx.params.tool, b.arguments ?? {});
      // recorded before answering: a decision nobody can find later did not happen
      await d.activity.record(agent.agent_id, { action: 'tool_call', outcome: ev.decision, tool: ev.tool, risk_score: ev.risk_score, reasons: ev.reasons, ...(b.action_context?.intent ? { intent: clipText(b.action_context.intent, INTENT_MAX_CHARS) } : {}) });
      return { body: ev };
    },
  });

  app.route({
    method: 'GET',
    path: '/agents/:agent_id/activity',
    auth: 'agentToken',
    scope: 'verify:read',
    tags: ['agents'],
    schema: { params: S('agent-id.params'), query: S('activity.query'), response: S('activity.response') },
    async handler(ctx) {
      const agent = agentOf(ctx);
      const q = ctx.query as { limit?: number; cursor?: string };
      if (q.cursor !== undefined && !Activity.validCursor(agent.agent_id, q.cursor)) {
        throw new HttpError(AgentProblems.invalidCursor, 'cursor must be the next_cursor of a previous page');
      }
      const page = await d.activity.list(agent.agent_id, q.limit ?? DEFAULT_PAGE, q.cursor);
      return { body: { agent_id: agent.agent_id, ...page } };
    },
  });
}
