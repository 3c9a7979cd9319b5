import { randomUUID } from 'node:crypto';
import { sha256Ref } from '../../core/json/canonical.js';
import type { VerdictSigner } from '../a2a/index.js';
import { HttpError } from '../../core/errors.js';
import type { Activity, ToolEvaluation } from '../agents/index.js';
import type { McpMetrics } from './metrics.js';
import type { Pins } from './pins.js';
import { admission, decide, type Policies } from './policy.js';
import type { Relist } from './relist.js';
import type { McpScreening } from './screening.js';

/**
 * The decision on one tools/call, before anything reaches the server: the pin first (a withheld or
 * changed definition is never called), then the server's policy over the pinned definition
 * (policy.ts: allow, deny or require an operator's approval; the agents plugin's safe/dangerous
 * lists are its defaults), then the arguments (credentials, exfiltration, sensitive and
 * out-of-sandbox paths). An allowed call carries an ES256 verdict signed with the deployment's A2A
 * key; without that key nothing is allowed.
 */
// defined with the relay's review (the worker side inserts it), which imports nothing of the gate
export { VERDICT_META } from './relay-review.js';
export const DENIAL_META = 'dev.proofgate/denial';
export const VERDICT_ENGINE = 'mcp.tool_policy';

export type GateResult =
  | { allow: true; verdict: string; verdict_id: string; definition_hash: string; evaluation: ToolEvaluation }
  | { allow: false; constraint_id: string; reason: string; evaluation: ToolEvaluation | null };

export interface GateDeps {
  pins: Pins;
  /** looked up per call: the a2a plugin may register after this one */
  signer(): VerdictSigner | null | undefined;
  activity: Activity;
  metrics: McpMetrics;
  /** runs the tool policy inline or, for large arguments, in the worker pool */
  screening: McpScreening;
  /** each server's tool policy (configuration or admin API) */
  policy: Policies;
  /** servers whose tools/list_changed has not been followed by a listing yet */
  relist: Relist;
}

export async function gateToolCall(d: GateDeps, server: string, agentId: string, params: unknown, signal?: AbortSignal): Promise<GateResult> {
  const p = (params && typeof params === 'object' && !Array.isArray(params) ? params : {}) as { name?: unknown; arguments?: unknown };
  const deny = async (reason: string, constraint_id: string, label: string, evaluation: ToolEvaluation | null = null): Promise<GateResult> => {
    d.metrics.toolCalls.inc({ server, decision: 'deny', reason: label });
    if (typeof p.name === 'string') {
      await d.activity.record(agentId, { action: 'tool_call', outcome: 'DENY', tool: p.name.slice(0, 128), constraint_id, risk_score: evaluation?.risk_score ?? 1, reasons: evaluation?.reasons ?? [reason] });
    }
    return { allow: false, constraint_id, reason, evaluation };
  };
  if (typeof p.name !== 'string' || !p.name) return deny('tools/call needs a string params.name', 'mcp.call.malformed', 'malformed');
  const args = p.arguments === undefined ? {} : p.arguments;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return deny('tools/call params.arguments must be an object', 'mcp.call.malformed', 'malformed');
  const tool = p.name;

  const pin = await d.pins.callable(server, tool);
  if (!pin.ok) return deny(pin.reason, `mcp.pin.${pin.status}`, 'pin');
  const relist = await d.relist.pending(server);
  if (relist) return deny(relist, 'mcp.pin.relist', 'relist');

  const admitted = admission(decide(await d.policy.of(server), tool, pin.definition, pin.findings), server, tool, pin.approved_by);
  if (!admitted.ok) return deny(admitted.reason, admitted.constraint_id, 'server_policy');

  let ev: ToolEvaluation;
  try {
    ev = await d.screening.evaluate(tool, args as Record<string, unknown>, { sandbox: admitted.sandbox, why: admitted.why }, signal);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    // arguments that could not be screened are not forwarded
    return deny(err.message, 'mcp.screening.unavailable', 'screening');
  }
  if (ev.decision !== 'ALLOW') return deny(ev.reasons.join('; '), 'agents.tool_policy', 'policy', ev);

  const signer = d.signer();
  if (!signer) return deny('no verdict signing key is configured (a2a.signing_key_pem), so no call can be allowed', 'mcp.verdict.unavailable', 'signing', ev);
  const verdictId = `mcp_${randomUUID()}`;
  const claims = signer.claims({
    sub: sha256Ref({ server, tool, arguments: args, definition_hash: pin.hash }),
    traceId: verdictId,
    verdict: 'forwarded',
    engine: VERDICT_ENGINE,
    sender: agentId,
    receiver: `mcp:${server}/${tool}`,
    // the caller proved it is this agent with its agent token (plugins/mcp authenticates no other way)
    senderAuth: 'agent_token',
    nowMs: Date.now(),
  });
  const verdict = signer.sign(claims);
  d.metrics.toolCalls.inc({ server, decision: 'allow', reason: 'policy' });
  await d.activity.record(agentId, { action: 'tool_call', outcome: 'ALLOW', tool: tool.slice(0, 128), risk_score: ev.risk_score, reasons: ev.reasons });
  return { allow: true, verdict, verdict_id: verdictId, definition_hash: pin.hash, evaluation: ev };
}

/** The MCP answer to a denied call: a tool result with isError, so the model reads the reason. */
export function denialResult(g: Extract<GateResult, { allow: false }>) {
  return {
    content: [{ type: 'text', text: `proofgate denied this tool call: ${g.reason}` }],
    isError: true,
    _meta: {
      [DENIAL_META]: {
        constraint_id: g.constraint_id,
        reason: g.reason,
        ...(g.evaluation ? { risk_score: g.evaluation.risk_score, reasons: g.evaluation.reasons, classification: g.evaluation.classification } : {}),
      },
    },
  };
}
