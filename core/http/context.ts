import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Principal, RequestContext, RequestSlots, RouteDef, SlotKey } from '../types.js';

/** What a request's lazily built parts need from the server: its logger and its shutdown signal. */
export interface ContextServer {
  log: Logger;
  shutdownSignal: AbortSignal;
  /** requests whose signal was built, so a shutdown reaches them */
  live: Set<Context>;
}

const SHUTTING_DOWN = 'server shutting down';
const CLIENT_GONE = 'client closed the connection';

/**
 * One request's context. A class rather than an object literal: every request then shares one
 * shape, and the getters live on the prototype instead of being two new closures per request. The
 * logger and the abort signal are built on first read — most requests need neither, and an
 * AbortSignal costs several µs to build; one that is built late is born aborted when the client
 * already left or the server is already shutting down, so a handler sees what an early one would.
 */
export class Context implements RequestContext {
  routePath = '';
  route: RouteDef = undefined as unknown as RouteDef;
  params: Record<string, string> = {};
  body: unknown = undefined;
  rawBody: Buffer | null = null;
  principal: Principal | null = null;
  /** built on the first `set`: most requests hand nothing from one phase to another */
  private slots: Map<SlotKey, unknown> | undefined = undefined;
  private qs: string;
  private parsedQuery: Record<string, unknown> | undefined = undefined;
  private reqLog: Logger | undefined = undefined;
  private ac: AbortController | undefined = undefined;
  /** the connection closed before the response ended */
  private gone = false;
  /** the pipeline is done with the request: a later close aborts nothing */
  private done = false;

  constructor(
    private readonly server: ContextServer,
    readonly id: string,
    readonly method: string,
    readonly url: string,
    queryString: string,
    readonly headers: IncomingHttpHeaders,
    readonly ip: string,
    readonly responseHeaders: Record<string, string>,
  ) {
    this.qs = queryString;
  }

  get query(): Record<string, unknown> {
    return (this.parsedQuery ??= parseQuery(this.qs));
  }

  get<K extends SlotKey>(key: K): RequestSlots[K] | undefined {
    return this.slots?.get(key) as RequestSlots[K] | undefined;
  }

  set<K extends SlotKey>(key: K, value: RequestSlots[K]): void {
    (this.slots ??= new Map()).set(key, value);
  }

  get log(): Logger {
    return (this.reqLog ??= this.server.log.child({ reqId: this.id }));
  }

  get signal(): AbortSignal {
    if (this.ac) return this.ac.signal;
    const ac = (this.ac = new AbortController());
    if (this.server.shutdownSignal.aborted) ac.abort(new Error(SHUTTING_DOWN));
    else if (this.gone) ac.abort(new Error(CLIENT_GONE));
    else if (!this.done) this.server.live.add(this);
    return ac.signal;
  }

  /** the response's connection closed; `ended`: after the whole response was handed to it */
  closed(ended: boolean): void {
    if (ended || this.done) return;
    this.gone = true;
    this.ac?.abort(new Error(CLIENT_GONE));
  }

  shutdown(): void {
    this.ac?.abort(new Error(SHUTTING_DOWN));
  }

  finish(): void {
    this.done = true;
    if (this.ac) this.server.live.delete(this);
  }
}

/**
 * Collected in a Map, not on a plain object: `out[k]` would read Object.prototype for keys such as
 * `constructor` or `toString` (a single `?constructor=a` became `[Function, 'a']`), and a repeated
 * `__proto__` went through the prototype setter and replaced the query object's prototype.
 * Object.fromEntries defines own data properties, as JSON.parse does for a body.
 */
export function parseQuery(qs: string): Record<string, unknown> {
  if (!qs) return {};
  const acc = new Map<string, string | string[]>();
  for (const [k, v] of new URLSearchParams(qs)) {
    const prev = acc.get(k);
    acc.set(k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
  }
  return Object.fromEntries(acc);
}
