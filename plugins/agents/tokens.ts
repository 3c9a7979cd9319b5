import { randomBytes } from 'node:crypto';
import { safeEqual } from '../../core/json/canonical.js';
import { HttpError } from '../../core/errors.js';
import type { Store } from '../../core/store/store.js';
import type { Authenticator, Principal } from '../../core/types.js';
import { newId } from '../auth/index.js';
import { AgentProblems } from './errors.js';
import { normalizePublicJwk, type AgentPublicJwk } from './public-jwk.js';

/**
 * Agents and their tokens (decisions §5). A token is `svc_agent_` + 32 random bytes base64url; the
 * store keeps only its HMAC-SHA256 lookup digest, computed by the auth plugin's key service under
 * SVC_API_KEY_LOOKUP_SECRET, so an agent token and an API key are protected by the same secret and
 * the same rotation rule. The digest index is written once with `insert`; the agent record is the
 * one mutable object, so revocation is a single atomic update every replica sees on its next read.
 */
export const AGENT_TOKEN_PREFIX = 'svc_agent_';
export const AGENT_TOKEN_PATTERN = /^svc_agent_[A-Za-z0-9_-]{43}$/;
export const AGENT_TYPES = ['autonomous', 'assistant', 'workflow', 'tool'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const AGENT_COLLECTIONS = {
  records: 'agents.records',
  byDigest: 'agents.token_digests',
  byOrg: 'agents.org_agents',
} as const;

/** the agent the agentToken authenticator found, for the route handler that serves it */
export const AGENT_SLOT = 'agents.agent';
declare module '../../core/types.js' {
  interface RequestSlots {
    'agents.agent': AgentRecord;
  }
}

export interface AgentRecord {
  agent_id: string;
  org_id: string;
  name: string;
  agent_type: AgentType;
  description: string | null;
  permissions: string[];
  max_cost_per_day: number | null;
  token_digest: string;
  created_at: string;
  created_by_key: string | null;
  revoked_at: string | null;
  /** verifies the agent's A2A message signatures (issue 12) */
  public_jwk?: AgentPublicJwk;
}

export interface NewAgent {
  orgId: string;
  keyId: string | null;
  name: string;
  agentType: AgentType;
  description: string | null;
  permissions: string[];
  maxCostPerDay: number | null;
  publicJwk?: AgentPublicJwk;
}

/** what a token is turned into for lookup: the auth plugin's HMAC under the lookup secret */
export type Digest = (token: string) => string;

export function newAgentToken(): string {
  return AGENT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export class Agents {
  constructor(
    private readonly store: Store,
    private readonly digest: Digest,
  ) {}

  private get records() {
    return this.store.collection<AgentRecord>(AGENT_COLLECTIONS.records);
  }

  async register(a: NewAgent): Promise<{ record: AgentRecord; token: string }> {
    const token = newAgentToken();
    const rec: AgentRecord = {
      agent_id: newId('agt'),
      org_id: a.orgId,
      name: a.name,
      agent_type: a.agentType,
      description: a.description,
      permissions: [...new Set(a.permissions)],
      max_cost_per_day: a.maxCostPerDay,
      token_digest: this.digest(token),
      created_at: new Date().toISOString(),
      created_by_key: a.keyId,
      revoked_at: null,
      ...(a.publicJwk ? { public_jwk: normalizePublicJwk(a.publicJwk) } : {}),
    };
    // the record first: a digest index entry never points at a record that does not exist
    if (!(await this.records.insert(rec.agent_id, rec))) throw new Error('agent id collision');
    if (!(await this.store.collection<string>(AGENT_COLLECTIONS.byDigest).insert(rec.token_digest, rec.agent_id))) {
      await this.records.delete(rec.agent_id);
      throw new Error('agent token digest collision');
    }
    await this.store.collection<string>(AGENT_COLLECTIONS.byOrg).put(`${rec.org_id}/${rec.agent_id}`, rec.agent_id);
    return { record: rec, token };
  }

  /** The active agent a presented token belongs to: one HMAC, two gets, a constant-time compare. */
  async byToken(token: string): Promise<AgentRecord | undefined> {
    if (!AGENT_TOKEN_PATTERN.test(token)) return undefined;
    const d = this.digest(token);
    const id = await this.store.collection<string>(AGENT_COLLECTIONS.byDigest).get(d);
    if (!id) return undefined;
    const rec = await this.records.get(id);
    if (!rec || typeof rec.token_digest !== 'string' || !safeEqual(rec.token_digest, d)) return undefined;
    return rec.revoked_at === null ? rec : undefined;
  }

  /** An agent of `orgId`; another organisation's agent is undefined (→ 404, existence not leaked). */
  async get(orgId: string, agentId: string): Promise<AgentRecord | undefined> {
    const rec = await this.records.get(agentId);
    return rec && rec.org_id === orgId ? rec : undefined;
  }

  /**
   * The organisation an active agent of this id belongs to, whichever asks: what makes the id an
   * organisation's to bind as an A2A sender (auth SenderOwners). A deleted agent owns nothing.
   */
  async ownerOf(agentId: string): Promise<string[]> {
    const rec = await this.records.get(agentId);
    return rec && rec.revoked_at === null && typeof rec.org_id === 'string' ? [rec.org_id] : [];
  }

  async listActive(orgId: string): Promise<AgentRecord[]> {
    const idx = await this.store.collection<string>(AGENT_COLLECTIONS.byOrg).list({ prefix: `${orgId}/` });
    const recs = await Promise.all(idx.map((e) => this.records.get(e.value)));
    return recs.filter((r): r is AgentRecord => !!r && r.revoked_at === null);
  }

  /** Soft delete: the token stops working at once. Undefined when not an active agent of `orgId`. */
  async revoke(orgId: string, agentId: string): Promise<AgentRecord | undefined> {
    let revoked: AgentRecord | undefined;
    await this.records.update(agentId, (cur) => {
      if (!cur || cur.org_id !== orgId || cur.revoked_at !== null) return undefined;
      revoked = { ...cur, revoked_at: new Date().toISOString() };
      return revoked;
    });
    return revoked;
  }
}

/** The public view of an agent: never the digest. */
export function publicAgent(r: AgentRecord) {
  return {
    agent_id: r.agent_id,
    name: r.name,
    agent_type: r.agent_type,
    description: r.description,
    permissions: r.permissions,
    max_cost_per_day: r.max_cost_per_day,
    created_at: r.created_at,
    ...(r.public_jwk ? { public_jwk: r.public_jwk } : {}),
  };
}

/**
 * `X-Agent-Token` → principal. The token must belong to the agent named in the path: another
 * agent's valid token is 403 (it authenticated, but for someone else); anything unknown, malformed
 * or revoked is 401. Agent principals carry only `verify:read`.
 */
export function agentTokenAuthenticator(agents: Agents): Authenticator {
  return async (ctx) => {
    const h = ctx.headers['x-agent-token'];
    const token = typeof h === 'string' ? h.trim() : '';
    if (!token) throw new HttpError(AgentProblems.invalidAgentToken, 'missing X-Agent-Token header');
    const rec = await agents.byToken(token);
    if (!rec) throw new HttpError(AgentProblems.invalidAgentToken, 'invalid agent token');
    const pathAgent = ctx.params.agent_id;
    if (pathAgent !== undefined && pathAgent !== rec.agent_id) {
      throw new HttpError(AgentProblems.agentMismatch, 'this agent token belongs to another agent');
    }
    const p: Principal = { kind: 'agentToken', orgId: rec.org_id, agentId: rec.agent_id, scopes: ['verify:read'] };
    ctx.set(AGENT_SLOT, rec);
    return p;
  };
}
