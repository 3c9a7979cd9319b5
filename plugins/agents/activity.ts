import { randomBytes } from 'node:crypto';
import type { Store } from '../../core/store/store.js';

/**
 * The per-agent activity log. Keys are `<agent_id>/<ms since epoch, 15 digits>-<random>`, so one
 * reverse prefix scan lists an agent's actions newest first, and a page cursor is simply the last
 * key returned (the next page ends before it). Queries are stored as hashes, never as text: the
 * log must not become a second copy of whatever an agent tried to smuggle out.
 */
export const ACTIVITY_COLLECTION = 'agents.activity';
export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

export type ActivityAction = 'registered' | 'verify' | 'tool_call' | 'revoked';

export interface ActivityEntry {
  activity_id: string;
  agent_id: string;
  action: ActivityAction;
  /** verify: passed | blocked; tool_call: ALLOW | DENY; registered / revoked: done */
  outcome: string;
  created_at: string;
  constraint_id?: string | null;
  query_hash?: string;
  tool?: string;
  risk_score?: number;
  reasons?: string[];
  intent?: string;
}

const CURSOR = /^[A-Za-z0-9_-]{1,64}\/\d{15}-[0-9a-f]{12}$/;

export class Activity {
  constructor(private readonly store: Store) {}

  private get col() {
    return this.store.collection<ActivityEntry>(ACTIVITY_COLLECTION);
  }

  async record(agentId: string, e: Omit<ActivityEntry, 'activity_id' | 'agent_id' | 'created_at'>): Promise<ActivityEntry> {
    const now = Date.now();
    const key = `${agentId}/${String(now).padStart(15, '0')}-${randomBytes(6).toString('hex')}`;
    const entry: ActivityEntry = { activity_id: key.slice(agentId.length + 1), agent_id: agentId, ...e, created_at: new Date(now).toISOString() };
    await this.col.insert(key, entry);
    return entry;
  }

  static validCursor(agentId: string, cursor: string): boolean {
    return CURSOR.test(`${agentId}/${cursor}`);
  }

  /** Newest first. `cursor` is the `activity_id` of the last entry of the previous page. */
  async list(agentId: string, limit: number, cursor?: string): Promise<{ items: ActivityEntry[]; next_cursor: string | null }> {
    const prefix = `${agentId}/`;
    const rows = await this.col.list({ prefix, reverse: true, limit: limit + 1, ...(cursor ? { end: prefix + cursor } : {}) });
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return { items: page.map((r) => r.value), next_cursor: more && page.length ? page[page.length - 1].key.slice(prefix.length) : null };
  }
}
