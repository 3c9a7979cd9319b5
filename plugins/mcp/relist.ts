import type { Store } from '../../core/store/store.js';

/**
 * `notifications/tools/list_changed`: the server says its tools changed. What proofgate holds as
 * each tool's last-listed definition may then be stale, and a call checked against it would pass on
 * the old approval (a rug pull announced in the open). So the notice marks the server
 * (`mcp.relist`, one record per server, in the shared store as the pins are) and every tools/call
 * of it is denied `mcp.pin.relist` until a complete listing whose first page was requested after
 * the mark has been reviewed through proofgate; that listing records every changed definition, so
 * a changed or unpinned tool is then withheld and denied by its pin as usual. MCP clients list
 * again when they get the notice, so the wait is one listing.
 */
export const RELIST_COLLECTION = 'mcp.relist';

interface RelistRecord {
  server: string;
  /** the latest notice (ms) */
  marked_at: number;
  /**
   * the request time of the first page of the latest complete listing that lifted it (ms). Kept, not
   * deleted: the mark and the lift are each one atomic update of this record (one per configured
   * server), so neither can undo the other unseen
   */
  listed_from?: number;
}

const inForce = (r: RelistRecord | undefined): r is RelistRecord => !!r && !((r.listed_from ?? -1) > r.marked_at);

export class Relist {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  private get records() {
    return this.store.collection<RelistRecord>(RELIST_COLLECTION);
  }

  async mark(server: string): Promise<void> {
    const at = this.now();
    await this.records.update(server, (cur) => ({ ...cur, server, marked_at: Math.max(at, cur?.marked_at ?? 0) }));
  }

  /** why a call of `server` must wait for a listing, or null */
  async pending(server: string): Promise<string | null> {
    if (!inForce(await this.records.get(server))) return null;
    return `server ${server} announced that its tools changed (notifications/tools/list_changed) and has not been listed through proofgate since: list its tools again (tools/list) before calling`;
  }

  /**
   * A complete listing was reviewed; its first page was requested at `startedAt` (ms). Decided on the
   * record as it is at that moment: a notice that came after that request stays in force.
   */
  async listed(server: string, startedAt: number): Promise<void> {
    // the common case (no notice, or one lifted already) costs one read
    if (!inForce(await this.records.get(server))) return;
    await this.records.update(server, (cur) => (inForce(cur) && cur.marked_at < startedAt ? { ...cur, listed_from: startedAt } : undefined));
  }
}
