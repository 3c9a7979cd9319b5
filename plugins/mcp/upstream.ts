import type { Readable } from 'node:stream';
import type { Pool } from 'undici';

// undici is imported when the first MCP request is relayed: a sidecar without MCP servers never loads it
let undici: Promise<typeof import('undici')> | null = null;
const loadUndici = () => (undici ??= import('undici'));

/**
 * The relay's leg to an MCP server: undici's request API on a keep-alive pool per server origin,
 * with the body handed back as a Node stream. Global fetch did the same over WHATWG streams, an
 * AbortSignal and a Response per call, ~a quarter of the relay's CPU (docs/mcp.md "Benchmark").
 *
 * What fetch gave that is kept: no redirect is followed (a 3xx is relayed as the answer it is,
 * never re-sent elsewhere with the agent's credential headers); the deadlines are the caller's
 * AbortSignal plus undici's own header and body timeouts (300 s, fetch's defaults); no compressed
 * answer is asked for. What differs: fetch asked for gzip/deflate/br and inflated the answer before
 * the size cap saw it; here an answer arrives as sent, and one with a content-encoding is not JSON
 * proofgate can read, so it is withheld like any other unreadable answer (answer.ts).
 *
 * Bounded: POST and DELETE share `connections` keep-alive connections per server, queueing past
 * them; a GET event stream holds its connection for its whole life (mcp.stream_max_seconds), so
 * streams get pools of their own and never starve calls. Their number is already bounded by
 * mcp.max_streams_per_agent.
 */
export interface UpstreamAnswer {
  status: number;
  ok: boolean;
  /** a response header; repeated fields joined with ", " as fetch's Headers.get joins them */
  header(name: string): string | null;
  body: Readable;
}

/** keep-alive connections per MCP server for calls (POST, DELETE) */
export const CALL_CONNECTIONS = 64;

export class McpUpstreams {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly connections = CALL_CONNECTIONS) {}

  private async pool(url: URL, stream: boolean): Promise<Pool> {
    const key = `${stream ? 'stream ' : ''}${url.origin}`;
    const have = this.pools.get(key);
    if (have) return have;
    const { Pool } = await loadUndici();
    let p = this.pools.get(key); // another request may have made it while the module loaded
    if (!p) {
      // connections: null is undici's "no limit"; streams are counted per agent before they get here
      p = new Pool(url.origin, { connections: stream ? null : this.connections, pipelining: 1, keepAliveTimeout: 30_000 });
      this.pools.set(key, p);
    }
    return p;
  }

  async request(url: URL, method: 'POST' | 'DELETE' | 'GET', headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<UpstreamAnswer> {
    const pool = await this.pool(url, method === 'GET');
    const r = await pool.request({ method, path: url.pathname + url.search, headers, body, signal });
    const h = r.headers;
    return {
      status: r.statusCode,
      ok: r.statusCode >= 200 && r.statusCode < 300,
      header: (name) => {
        const v = h[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
      body: r.body,
    };
  }

  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    // destroy, not close: a GET stream would hold close() until mcp.stream_max_seconds
    await Promise.allSettled(all.map((p) => p.destroy()));
  }
}

/** an answer nobody reads: drained (undici's dump: a small rest keeps its connection, a large one closes it) */
export function discard(body: Readable | undefined): void {
  const b = body as (Readable & { dump?: () => Promise<void> }) | undefined;
  if (!b) return;
  b.on('error', () => undefined);
  if (b.dump) void b.dump().catch(() => undefined);
  else b.destroy();
}
