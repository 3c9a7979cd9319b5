import { sha256Hex } from '../../core/json/canonical.js';
import type { Store } from '../../core/store/store.js';

/**
 * MCP pages tools/list: the client reads the first page without a cursor and each next one with the
 * `nextCursor` the page before handed out. A server that lists `read_file` on page 1 and another
 * `read_file` on page 2 shadows a tool as surely as one that lists both in one answer, yet each
 * answer alone looks clean. So the proxy relates the pages into listings and remembers, per
 * listing, which names it has already shown: a name shown again is a duplicate (pins.ts).
 *
 * A listing is what one client session reads from one request without a cursor onwards; a cursor
 * continues the listing whose last page handed it out, and only that one (a cursor nobody handed
 * out, or one already used, is refused: what it continues is unknown, so its page cannot be
 * reviewed against the pages before it). Bounds, so a session cannot grow the state without end:
 * one record per session (per agent, for a server without sessions), at most `maxListings` live
 * listings in it (a new one evicts the oldest), at most `maxTools` names in one listing, a listing
 * is dropped once its last page (no nextCursor) is reviewed, and the record goes with the session
 * (`DELETE`). It is in the shared store, as the session binding is: the next page may reach
 * another replica. Names and cursors are kept as digests (a server chooses their length).
 */
export const LISTING_COLLECTION = 'mcp.listings';

/**
 * The largest tools/list answer (or SSE event of one) read: past it the upstream request is aborted
 * (502). Its definitions are hashed and screened in the worker pool, but the relay still decodes,
 * parses and re-serialises the page on the event loop, which at 8 MiB holds it for 100 ms and more;
 * at 2 MiB that stays within the 50 ms the loop is allowed. A server with more to list pages it
 * (`nextCursor`): 2 MiB is some ten times the listing of the largest public MCP servers.
 */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

interface Listing {
  /** when its first page was reviewed (ms): a mark set after that is not cleared by it */
  started_at: number;
  /** digest of the cursor the last page handed out: the only one that continues this listing */
  next: string;
  /** digests of every name listed so far */
  names: string[];
  /** digests of the names listed more than once so far */
  repeated: string[];
}

interface ListingsRecord {
  server: string;
  listings: Listing[];
}

export type PageOutcome =
  | {
      ok: true;
      /** names on this page that an earlier page of the same listing already listed */
      earlier: Set<string>;
      /** when this was the last page: when the listing started, and whether it listed `name` exactly once */
      complete: null | { startedAt: number; listedOnce(name: string): boolean };
    }
  | { ok: false; reason: 'unknown_cursor' | 'too_many'; detail: string };

const digest = (s: string) => sha256Hex(s).slice(0, 32);
/** the server chooses its cursors' type as well as their text; a client echoes what it was handed */
const cursorDigest = (v: unknown) => sha256Hex(JSON.stringify(v));
/** a nextCursor that ends the listing: absent, null, or empty (listTools in client.ts stops at "" too) */
const ends = (v: unknown) => v === undefined || v === null || v === '';

export class Listings {
  readonly maxTools: number;
  readonly maxListings: number;

  constructor(
    private readonly store: Store,
    o: { maxTools?: number; maxListings?: number } = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxTools = o.maxTools ?? 10_000;
    this.maxListings = o.maxListings ?? 4;
  }

  private get records() {
    return this.store.collection<ListingsRecord>(LISTING_COLLECTION);
  }

  /** The record of one session of `server`, or of the agent's requests without a session. */
  static keyOf(server: string, sid: string | undefined, agentId: string): string {
    return sha256Hex(sid === undefined ? `agent\0${server}\0${agentId}` : `session\0${server}\0${sid}`);
  }

  /**
   * Records one page of a tools/list answer: `cursor` is the request's params.cursor (undefined
   * starts a listing), `names` the page's tool names, `nextCursor` the answer's; `startedAt` (ms), when
   * the page was asked for: a listing starts then, not when its answer came.
   */
  async page(key: string, server: string, cursor: unknown, names: string[], nextCursor: unknown, startedAt?: number): Promise<PageOutcome> {
    const pageDigests = names.map(digest);
    const now = startedAt ?? this.now();
    let outcome: PageOutcome = { ok: false, reason: 'unknown_cursor', detail: '' };
    // the function may run again on a retried write: everything it reports is set anew each time
    await this.records.update(key, (cur) => {
      const listings = (cur?.listings ?? []).map((l) => ({ ...l }));
      let listing: Listing;
      // a null cursor is no cursor: some clients serialise an unset optional field as null
      if (cursor === undefined || cursor === null) {
        listing = { started_at: now, next: '', names: [], repeated: [] };
        listings.push(listing);
      } else {
        const want = cursorDigest(cursor);
        const found = listings.find((l) => l.next === want);
        if (!found) {
          outcome = { ok: false, reason: 'unknown_cursor', detail: 'this cursor continues no listing of this session (unknown, already used, or from a listing started over since): list again without a cursor' };
          return undefined;
        }
        listing = found;
      }
      const seen = new Set(listing.names);
      const repeated = new Set(listing.repeated);
      const earlierDigests = new Set<string>();
      const onPage = new Set<string>();
      for (const d of pageDigests) {
        if (seen.has(d) && !onPage.has(d)) earlierDigests.add(d);
        if (seen.has(d) || onPage.has(d)) repeated.add(d);
        onPage.add(d);
      }
      for (const d of onPage) seen.add(d);
      if (seen.size > this.maxTools) {
        outcome = { ok: false, reason: 'too_many', detail: `more than ${this.maxTools} tools in one listing` };
        // the listing cannot be reviewed whole any more: its cursor continues nothing
        return { server, listings: listings.filter((l) => l !== listing) };
      }
      const last = ends(nextCursor);
      const earlier = new Set(names.filter((n, i) => earlierDigests.has(pageDigests[i])));
      outcome = { ok: true, earlier, complete: last ? { startedAt: listing.started_at, listedOnce: (n) => seen.has(digest(n)) && !repeated.has(digest(n)) } : null };
      if (last) {
        const rest = listings.filter((l) => l !== listing);
        // a listing of one page leaves nothing to remember: no record for it
        return cur || rest.length ? { server, listings: rest } : undefined;
      }
      listing.next = cursorDigest(nextCursor);
      listing.names = [...seen];
      listing.repeated = [...repeated];
      // another listing waiting on the same cursor could not be told apart from this one by the
      // client's next request: the newer one holds it; the oldest go past the bound
      const kept = listings.filter((l) => l === listing || l.next !== listing.next);
      return { server, listings: kept.slice(-this.maxListings) };
    });
    return outcome;
  }

  /** The session ended: its listings go with it. */
  async end(key: string): Promise<void> {
    await this.records.delete(key);
  }
}
