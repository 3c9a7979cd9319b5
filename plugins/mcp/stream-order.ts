/**
 * A session's POSTs wait, on this replica, for the GET stream its client is opening.
 *
 * An MCP client opens its standalone GET stream once it has sent `notifications/initialized`, and
 * does not wait for it before its next request. What the server then sends with no related request
 * (a sampling or elicitation request from a tool, `roots/list` after a roots notification) goes on
 * the standalone stream, and a server that has no such stream yet drops it (or, with an event
 * store, keeps it for a `Last-Event-ID` that a fresh stream never sends): the call then waits out
 * its timeout. Direct, the GET is up a fraction of a millisecond later and the server is still
 * reading the request; through the proxy (and whatever sits in front of it) the GET is a hop or two
 * later, and the official conformance suite's client, whose tools/call leaves before its GET, lost
 * its sampling request in 2 runs of 40. So:
 *
 * - a GET being opened holds the session's POSTs until the server has answered it (its headers: the
 *   SDK registers the stream before it writes them);
 * - after `notifications/initialized` of a client that declared it can be asked (sampling,
 *   elicitation, roots), the session's POSTs wait for its first GET for up to `EXPECT_GET_MS`: a
 *   client that never opens one pays that once, on a request sent that soon after initialising.
 *
 * Every wait is bounded by `GET_ORDER_WAIT_MS` and happens once per GET: a server slow to answer a
 * GET delays the session's POSTs by that much at most, then they go as before. Only a GET that
 * passed the session check counts (the session's own agent), so no one else can hold a session's
 * messages. In memory, per replica; session-order.ts carries the first GET's order across replicas
 * through the session's record.
 */
export const GET_ORDER_WAIT_MS = 2_000;
export const EXPECT_GET_MS = 500;
/** sessions whose initialize was relayed and whose `initialized` is awaited, at most (oldest dropped) */
const MAX_ASKING = 10_000;
/**
 * The longest key (server name and session id) kept while `initialized` is awaited: a session id is the
 * server's choice, and one that sends ids of kilobytes would otherwise make that list megabytes. Such a
 * session is not waited for (its order is the network's).
 */
const MAX_KEY = 512;

interface Opening {
  count: number;
  /** waited for past the bound once: no longer waited for */
  stale: boolean;
  settled: Promise<void>;
  settle: () => void;
}

/** capabilities that let a server send requests to the client, each on the standalone stream when no request is related */
const ASKABLE = ['sampling', 'elicitation', 'roots'];

/** Whether an initialize request's client declared a capability that lets the server ask it something. */
export function clientCanBeAsked(params: unknown): boolean {
  const caps = (params as { capabilities?: unknown } | null | undefined)?.capabilities;
  return !!caps && typeof caps === 'object' && ASKABLE.some((c) => Object.hasOwn(caps, c));
}

export class OpeningStreams {
  private readonly opening = new Map<string, Opening>();
  /** sessions initialised by a client that can be asked, until their `notifications/initialized` */
  private readonly asking = new Set<string>();

  constructor(
    private readonly waitMs = GET_ORDER_WAIT_MS,
    private readonly expectMs = EXPECT_GET_MS,
  ) {}

  private entry(key: string): Opening {
    let o = this.opening.get(key);
    if (!o) {
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      o = { count: 0, stale: false, settled, settle };
      this.opening.set(key, o);
    }
    return o;
  }

  private end(key: string, o: Opening): void {
    if (this.opening.get(key) === o) this.opening.delete(key);
    o.settle();
  }

  /** A GET for `key` is being opened; the returned function says it was answered or failed (idempotent). */
  begin(key: string): () => void {
    const o = this.entry(key);
    o.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--o.count <= 0) this.end(key, o);
    };
  }

  /** The server accepted an initialize for `key` from a client that can be asked (clientCanBeAsked). */
  initializing(key: string): void {
    if (key.length > MAX_KEY) return;
    if (this.asking.size >= MAX_ASKING) this.asking.delete(this.asking.values().next().value as string);
    this.asking.add(key);
  }

  /** `notifications/initialized` of `key` is relayed: its GET is expected now, if its client can be asked. */
  initialized(key: string): void {
    if (!this.asking.delete(key) || this.opening.has(key)) return;
    const o = this.entry(key);
    const timer = setTimeout(() => {
      // no GET began in time: the session's POSTs stop waiting for one
      if (o.count === 0) this.end(key, o);
    }, this.expectMs);
    timer.unref();
  }

  /**
   * false at once (no promise: every POST asks) when no GET is being opened or expected for `key`;
   * otherwise a promise of true once it is answered (or the expectation lapses), or after the bound.
   */
  after(key: string): Promise<true> | false {
    const o = this.opening.get(key);
    return !o || o.stale ? false : this.wait(o);
  }

  private async wait(o: Opening): Promise<true> {
    let timer: NodeJS.Timeout | undefined;
    // not unref'd: a request is waiting on it
    const bound = new Promise<'bound'>((resolve) => (timer = setTimeout(() => resolve('bound'), this.waitMs)));
    try {
      if ((await Promise.race([o.settled, bound])) === 'bound') o.stale = true;
    } finally {
      clearTimeout(timer);
    }
    return true;
  }

  /** GETs being opened or expected now, and initialisations awaiting their `initialized` (tests) */
  get size(): { opening: number; asking: number } {
    return { opening: this.opening.size, asking: this.asking.size };
  }
}
