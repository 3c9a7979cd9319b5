import { A2AGateway, type Caller, type GatewayOptions, type LogSource } from './gateway.js';
import type { AgentMessage, PayloadType, VerdictStatus, VerificationVerdict } from './message.js';

/**
 * The recent A2A decisions of each organisation, for GET /a2a/decisions (the console's A2A view).
 * Kept in this process's memory, bounded per organisation: the verdicts themselves are signed JWTs
 * the caller already holds, and the intercept path must not gain a store write per message for a
 * view. A restart empties it, and each replica of a shared deployment answers with its own, as
 * GET /a2a/metrics does.
 */
export interface Decision {
  org_id: string;
  sender: string;
  receiver: string;
  payload_type: PayloadType;
  status: VerdictStatus;
  engine: string | null;
  constraint_id: string | null;
  trace_id: string;
  verified_at: string;
}

/** per organisation; the oldest is dropped first */
export const DECISIONS_PER_ORG = 200;
/** organisation ids are bounded by the deployment's accounts; this bounds a store that lies about it */
const MAX_ORGS = 10_000;

export class DecisionLog {
  private readonly byOrg = new Map<string, Decision[]>();

  add(orgId: string, msg: AgentMessage, v: VerificationVerdict): void {
    let list = this.byOrg.get(orgId);
    if (!list) {
      if (this.byOrg.size >= MAX_ORGS) this.byOrg.delete(this.byOrg.keys().next().value!);
      this.byOrg.set(orgId, (list = []));
    }
    const constraint = v.details?.constraint_id;
    list.push({
      org_id: orgId,
      sender: msg.sender_agent_id,
      receiver: msg.receiver_agent_id,
      payload_type: msg.payload_type,
      status: v.status,
      engine: v.engine_used,
      constraint_id: typeof constraint === 'string' ? constraint.slice(0, 128) : null,
      trace_id: v.audit_trace_id,
      verified_at: v.verified_at,
    });
    if (list.length > DECISIONS_PER_ORG) list.splice(0, list.length - DECISIONS_PER_ORG);
  }

  /** newest first; `orgId` null: every organisation's (an operator's reading) */
  recent(orgId: string | null, limit: number, pair?: { sender?: string; receiver?: string }): Decision[] {
    const lists = orgId === null ? [...this.byOrg.values()] : [this.byOrg.get(orgId) ?? []];
    const all = lists.flat().filter((d) => (pair?.sender === undefined || d.sender === pair.sender) && (pair?.receiver === undefined || d.receiver === pair.receiver));
    all.sort((a, b) => (a.verified_at < b.verified_at ? 1 : a.verified_at > b.verified_at ? -1 : 0));
    return all.slice(0, limit);
  }
}

/**
 * The gateway with each verdict written to the decision log. Every path that decides (the intercept
 * route, the outbound and inbound proxy, ext_authz) goes through intercept, so each is recorded once;
 * the caller's organisation is the principal's, '' for an unauthenticated inbound hop (operators only).
 */
export class RecordingGateway extends A2AGateway {
  constructor(
    private readonly decisions: DecisionLog,
    o: GatewayOptions,
  ) {
    super(o);
  }

  override async intercept(msg: AgentMessage, caller: Caller, signal: AbortSignal | (() => AbortSignal), log: LogSource): Promise<VerificationVerdict> {
    const v = await super.intercept(msg, caller, signal, log);
    this.decisions.add(caller.principal?.orgId ?? '', msg, v);
    return v;
  }
}
