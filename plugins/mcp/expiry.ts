import type { Store, WriteOp } from '../../core/store/store.js';
import { LISTING_COLLECTION } from './listings.js';
import { PIN_COLLECTIONS, type DuplicateRecord, type SeenRecord } from './pins.js';
import { STREAM_COLLECTION, type StreamRecord } from './streams.js';

/**
 * Session bindings (`mcp.sessions`) and tools/list listings (`mcp.listings`) that a client never
 * ends. MCP clients often just drop a session instead of sending DELETE, so without an end of its
 * own every initialize would leave a record in the store for good. A session expires
 * `mcp.session_ttl_seconds` after it was initialized: a request on it is answered 404, the answer
 * MCP clients take as "initialize again", and a sweep removes what nobody asks for any more.
 *
 * The same sweep bounds what a server's listings leave (pins.ts): a last-seen record (`mcp.seen`)
 * no listing has shown for `mcp.state_ttl_seconds` goes — the tool is then `unlisted`, refused
 * until listed again, its pin kept — and so does a duplicate mark (`mcp.duplicates`) cleared that
 * long ago, or in force that long with no last-seen record beside it (nothing to call either way).
 */
export const SESSION_COLLECTION = 'mcp.sessions';

export interface SessionRecord {
  server: string;
  agent_id: string;
  org_id: string;
  created_at: string;
  /** the MCP revision the server's initialize answer chose (batch.ts: it decides whether batches are relayed) */
  protocol_version?: string;
  /** the client declared it can be asked (sampling, elicitation, roots): its GET stream is waited for (session-order.ts) */
  asks?: true;
  /** when its `initialized` was relayed (asks only) */
  initialized_at?: string;
  /** the server answered the session's first GET (asks only) */
  stream_up?: true;
}

/** records read per page of a sweep: one sweep never holds the whole collection */
const PAGE = 500;

export class McpExpiry {
  constructor(
    private readonly store: Store,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    readonly stateTtlMs: number = 30 * 86_400_000,
  ) {}

  private old(at: unknown): boolean {
    const t = typeof at === 'string' ? Date.parse(at) : NaN;
    return !(this.now() - t <= this.stateTtlMs);
  }

  private staleSeen(v: unknown): boolean {
    const s = v as SeenRecord | null;
    return this.old(s?.listed_at ?? s?.seen_at);
  }

  /** read again just before the delete: a listing may have marked the name anew since the page was read */
  private async staleDuplicate(v: unknown, key: string): Promise<boolean> {
    const d = v as DuplicateRecord | null;
    if (!d) return true;
    if (d.cleared_at) return this.old(d.cleared_at);
    return this.old(d.marked_at) && !(await this.store.collection<SeenRecord>(PIN_COLLECTIONS.seen).get(key));
  }

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

  /** Removes expired sessions, stale listings, last-seen records and duplicate marks; returns how many records went. */
  async sweep(): Promise<number> {
    const stale: Record<string, (v: unknown, key: string) => boolean | Promise<boolean>> = {
      [SESSION_COLLECTION]: (v) => this.expired((v as SessionRecord | null)?.created_at),
      [LISTING_COLLECTION]: (v) => this.staleListings(v),
      // a stream outlives no session: past the lifetime nothing can resume it
      [STREAM_COLLECTION]: (v) => this.expired((v as StreamRecord | null)?.created_at),
      [PIN_COLLECTIONS.seen]: (v) => this.staleSeen(v),
      [PIN_COLLECTIONS.duplicates]: async (v, key) => {
        if (!(await this.staleDuplicate(v, key))) return false;
        const now = await this.store.collection<unknown>(PIN_COLLECTIONS.duplicates).get(key);
        return now === undefined || (await this.staleDuplicate(now, key));
      },
    };
    let removed = 0;
    for (const [collection, isStale] of Object.entries(stale)) {
      const col = this.store.collection<unknown>(collection);
      let start: string | undefined;
      for (;;) {
        const page = await col.list({ start, limit: PAGE });
        const dels: WriteOp[] = [];
        for (const e of page) if (await isStale(e.value, e.key)) dels.push({ collection, key: e.key });
        if (dels.length) await this.store.commit(dels);
        removed += dels.length;
        if (page.length < PAGE) break;
        // the next page starts just past the last key read
        start = `${page[page.length - 1].key}\u0000`;
      }
    }
    return removed;
  }
}
