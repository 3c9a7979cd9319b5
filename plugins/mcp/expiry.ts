import type { Store, WriteOp } from '../../core/store.js';
import { LISTING_COLLECTION } from './listings.js';

/**
 * Session bindings (`mcp.sessions`) and tools/list listings (`mcp.listings`) that a client never
 * ends. MCP clients often just drop a session instead of sending DELETE, so without an end of its
 * own every initialize would leave a record in the store for good. A session expires
 * `mcp.session_ttl_seconds` after it was initialized: a request on it is answered 404, the answer
 * MCP clients take as "initialize again", and a sweep removes what nobody asks for any more.
 */
export const SESSION_COLLECTION = 'mcp.sessions';

export interface SessionRecord {
  server: string;
  agent_id: string;
  org_id: string;
  created_at: string;
}

/** records read per page of a sweep: one sweep never holds the whole collection */
const PAGE = 500;

export class McpExpiry {
  constructor(
    private readonly store: Store,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Is a session initialized at `createdAt` past its lifetime? An unreadable time is. */
  expired(createdAt: unknown): boolean {
    const at = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
    return !(this.now() - at <= this.ttlMs);
  }

  /** A listings record is stale when none of its listings started within the lifetime. */
  private staleListings(v: unknown): boolean {
    const ls = (v as { listings?: Array<{ started_at?: unknown }> } | null)?.listings;
    if (!Array.isArray(ls)) return true;
    return !ls.some((l) => typeof l?.started_at === 'number' && this.now() - l.started_at <= this.ttlMs);
  }

  /** Removes expired sessions and stale listings; returns how many records went. */
  async sweep(): Promise<number> {
    const stale: Record<string, (v: unknown) => boolean> = {
      [SESSION_COLLECTION]: (v) => this.expired((v as SessionRecord | null)?.created_at),
      [LISTING_COLLECTION]: (v) => this.staleListings(v),
    };
    let removed = 0;
    for (const [collection, isStale] of Object.entries(stale)) {
      const col = this.store.collection<unknown>(collection);
      let start: string | undefined;
      for (;;) {
        const page = await col.list({ start, limit: PAGE });
        const dels: WriteOp[] = page.filter((e) => isStale(e.value)).map((e) => ({ collection, key: e.key }));
        if (dels.length) await this.store.commit(dels);
        removed += dels.length;
        if (page.length < PAGE) break;
        // keys are hex digests: the next page starts just past the last one read
        start = `${page[page.length - 1].key}\u0000`;
      }
    }
    return removed;
  }
}
