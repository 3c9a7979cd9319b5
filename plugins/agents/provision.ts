import type { Store } from '../../core/store/store.js';
import { AGENT_COLLECTIONS, AGENT_TOKEN_PATTERN, type AgentRecord, type AgentType, type Agents } from './tokens.js';

/**
 * Agents declared before start (the bootstrap file): create-or-update by a chosen agent id, with a
 * token from a Secret (`token_env`) or its digest. The digest is the auth plugin's HMAC under the
 * lookup secret, like every agent token. A revoked agent stays revoked.
 */
export interface DeclaredAgent {
  agentId: string;
  orgId: string;
  name: string;
  agentType: AgentType;
  description: string | null;
  permissions: string[];
  maxCostPerDay: number | null;
  token?: string;
  tokenDigest?: string;
}

export async function provisionAgent(store: Store, digestOf: (token: string) => string, a: DeclaredAgent): Promise<'created' | 'updated' | 'unchanged' | 'revoked_kept'> {
  let digest: string;
  if (a.token !== undefined) {
    if (!AGENT_TOKEN_PATTERN.test(a.token)) throw new Error(`agent ${a.agentId}: the token is not an agent token (svc_agent_ and 43 base64url characters)`);
    digest = digestOf(a.token);
  } else if (a.tokenDigest !== undefined) digest = a.tokenDigest;
  else throw new Error(`agent ${a.agentId}: neither token_env nor token_digest`);

  const records = store.collection<AgentRecord>(AGENT_COLLECTIONS.records);
  const digests = store.collection<string>(AGENT_COLLECTIONS.byDigest);
  const cur = await records.get(a.agentId);
  if (cur && cur.org_id !== a.orgId) throw new Error(`agent ${a.agentId} belongs to another organisation`);
  if (cur && cur.revoked_at !== null) return 'revoked_kept';
  const holder = await digests.get(digest);
  if (holder && holder !== a.agentId) throw new Error(`agent ${a.agentId}: this token is already the token of agent ${holder}`);
  const next: AgentRecord = {
    agent_id: a.agentId,
    org_id: a.orgId,
    name: a.name,
    agent_type: a.agentType,
    description: a.description,
    permissions: [...new Set(a.permissions)],
    max_cost_per_day: a.maxCostPerDay,
    token_digest: digest,
    created_at: cur?.created_at ?? new Date().toISOString(),
    created_by_key: cur?.created_by_key ?? null,
    revoked_at: null,
  };
  if (cur && JSON.stringify(cur) === JSON.stringify(next)) return 'unchanged';
  // the digest index before the record, as register() keeps it: a record never names a token nobody can look up
  if (!holder) await digests.put(digest, a.agentId);
  await records.put(a.agentId, next);
  if (cur && cur.token_digest !== digest) await digests.delete(cur.token_digest);
  await store.collection<string>(AGENT_COLLECTIONS.byOrg).put(`${a.orgId}/${a.agentId}`, a.agentId);
  return cur ? 'updated' : 'created';
}

/** Prune: revokes the active agents of `orgId` not in `keep`. */
export async function revokeUndeclaredAgents(agents: Agents, orgId: string, keep: ReadonlySet<string>): Promise<string[]> {
  const out: string[] = [];
  for (const a of await agents.listActive(orgId)) {
    if (keep.has(a.agent_id)) continue;
    if (await agents.revoke(orgId, a.agent_id)) out.push(a.agent_id);
  }
  return out;
}
