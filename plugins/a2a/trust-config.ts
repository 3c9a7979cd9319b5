import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { compileSchema } from '../../core/json/validate.js';
import { publicJwkProblem, type AgentPublicJwk } from '../agents/index.js';
import { isValidAgentId, type PayloadType } from './message.js';

/**
 * Turns the a2a trust settings into lookup structures once, at start-up. Anything malformed throws
 * (the plugin's register fails, so the server does not start with a policy other than the one the
 * operator wrote).
 */
export interface AllowEntry {
  agentId: string;
  /** null: any receiver */
  receivers: ReadonlySet<string> | null;
  /** null: any payload type */
  payloadTypes: ReadonlySet<PayloadType> | null;
  /** epoch ms; null: no expiry */
  validUntil: number | null;
  /** public key that verifies this agent's message signatures (issue 12); null: none */
  jwk: AgentPublicJwk | null;
  /** the organisation the operator assigned this id to, whose keys may bind it (issue 38); null: none */
  orgId: string | null;
}

export type Allowlist = ReadonlyMap<string, readonly AllowEntry[]>;

export class TrustConfigError extends Error {
  override name = 'TrustConfigError';
}

const SCHEMA_URL = new URL('../../../schemas/a2a/trusted-agents.json', import.meta.url);

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.find((x) => x.keyword !== 'oneOf') ?? errors?.[0];
  return e ? `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}` : 'is invalid';
}

/** the organisations the operator assigned `agentId` to (at most one: parseTrustedAgents refuses more) */
export function assignedOrgs(allowlist: Allowlist, agentId: string): string[] {
  const out: string[] = [];
  for (const e of allowlist.get(agentId) ?? []) if (e.orgId !== null && !out.includes(e.orgId)) out.push(e.orgId);
  return out;
}

/**
 * `trusted_agents` is either comma-separated ids (each unrestricted) or a JSON array whose items are
 * ids or scoped entries `{agent_id, allowed_receivers?, allowed_payload_types?, valid_until?}`.
 * A string starting with `[` is read as the JSON form (how SVC_A2A_TRUSTED_AGENTS carries it).
 */
export function parseTrustedAgents(value: string | unknown[] | null | undefined): Allowlist {
  let items: unknown[];
  if (value === null || value === undefined) items = [];
  else if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') {
    const text = value.trim();
    if (text.startsWith('[')) {
      try {
        items = JSON.parse(text) as unknown[];
      } catch {
        throw new TrustConfigError('a2a.trusted_agents (SVC_A2A_TRUSTED_AGENTS): starts with [ but is not valid JSON');
      }
    } else {
      items = text === '' ? [] : text.split(',').map((s) => s.trim()).filter((s) => s !== '');
      for (const id of items) {
        if (!isValidAgentId(id)) throw new TrustConfigError(`a2a.trusted_agents (SVC_A2A_TRUSTED_AGENTS): ${JSON.stringify(id)} is not a valid agent id`);
      }
    }
  } else {
    throw new TrustConfigError('a2a.trusted_agents (SVC_A2A_TRUSTED_AGENTS): must be a string or an array');
  }

  const validate = compileSchema(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as object);
  if (!validate(items)) throw new TrustConfigError(`a2a.trusted_agents (SVC_A2A_TRUSTED_AGENTS): ${describe(validate.errors)}`);

  const out = new Map<string, AllowEntry[]>();
  for (const item of items) {
    let entry: AllowEntry;
    if (typeof item === 'string') {
      entry = { agentId: item, receivers: null, payloadTypes: null, validUntil: null, jwk: null, orgId: null };
    } else {
      const o = item as { agent_id: string; allowed_receivers?: string[]; allowed_payload_types?: PayloadType[]; valid_until?: string; jwk?: unknown; org_id?: string };
      const jwkProblem = o.jwk === undefined ? null : publicJwkProblem(o.jwk);
      if (jwkProblem) throw new TrustConfigError(`a2a.trusted_agents: jwk of ${JSON.stringify(o.agent_id)} ${jwkProblem}`);
      const until = o.valid_until === undefined ? null : Date.parse(o.valid_until);
      if (until !== null && !Number.isFinite(until)) {
        throw new TrustConfigError(`a2a.trusted_agents: valid_until of ${JSON.stringify(o.agent_id)} is not a date`);
      }
      entry = {
        agentId: o.agent_id,
        receivers: o.allowed_receivers ? new Set(o.allowed_receivers) : null,
        payloadTypes: o.allowed_payload_types ? new Set(o.allowed_payload_types) : null,
        validUntil: until,
        jwk: o.jwk === undefined ? null : (o.jwk as AgentPublicJwk),
        orgId: o.org_id ?? null,
      };
    }
    const list = out.get(entry.agentId) ?? [];
    // one id, one owner: two organisations assigned the same sender id would leave both able to speak as it
    const other = list.find((e) => e.orgId !== null && entry.orgId !== null && e.orgId !== entry.orgId);
    if (other) throw new TrustConfigError(`a2a.trusted_agents: ${JSON.stringify(entry.agentId)} is assigned to two organisations (${JSON.stringify(other.orgId)} and ${JSON.stringify(entry.orgId)})`);
    list.push(entry);
    out.set(entry.agentId, list);
  }
  return out;
}

export function parseBlocklist(ids: readonly string[]): ReadonlySet<string> {
  for (const id of ids) {
    if (!isValidAgentId(id)) throw new TrustConfigError(`a2a.blocklist (SVC_A2A_BLOCKLIST): ${JSON.stringify(id)} is not a valid agent id`);
  }
  return new Set(ids);
}

/** `sender>receiver`, split at the first `>`; an id containing `>` cannot be the sender of a blocked pair. */
export function parseBlockedPairs(pairs: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const p of pairs) {
    const i = p.indexOf('>');
    const sender = i < 0 ? '' : p.slice(0, i).trim();
    const receiver = i < 0 ? '' : p.slice(i + 1).trim();
    if (!isValidAgentId(sender) || !isValidAgentId(receiver)) {
      throw new TrustConfigError(`a2a.blocked_pairs (SVC_A2A_BLOCKED_PAIRS): ${JSON.stringify(p)} is not "sender>receiver"`);
    }
    out.add(pairKey(sender, receiver));
  }
  return out;
}

export function pairKey(sender: string, receiver: string): string {
  return `${sender}\u0000${receiver}`;
}
