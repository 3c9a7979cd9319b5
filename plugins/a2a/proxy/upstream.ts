import type { Readable } from 'node:stream';
import type { Pool } from 'undici';
import { egressConnector, EgressRefused, type EgressPolicy } from '../../../core/http/egress.js';
import { tracedClient } from '../../../core/obs/tracing.js';

// undici is imported when the first peer is contacted: a sidecar that only intercepts never
// forwards, and the module costs ~15 MB of RSS at start-up
let undici: Promise<typeof import('undici')> | null = null;
const loadUndici = () => (undici ??= import('undici'));

/**
 * One undici keep-alive pool per peer origin, with deadlines: connecting, the response headers, and
 * the longest silence inside a body (an SSE stream that stops sending is cut, not held forever).
 * The body is handed back as a stream and relayed chunk by chunk; nothing is buffered or rewritten.
 *
 * URLs the operator configured (peer URLs, card URLs, the inbound target) are connected to as
 * written. A URL that came from elsewhere — an endpoint a peer's card named on another origin — is
 * requested with `learned` and goes through a separate pool whose connector admits only addresses
 * the egress policy allows, checked at every connection (core/http/egress.ts). Any new caller that
 * relays a URL it was handed (push-notification configs) must pass `learned` too.
 */
export interface UpstreamOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  connections: number;
  /** where learned URLs may go (a2a.proxy.egress_allow) */
  egress: EgressPolicy;
}

/** learned origins keep a pool each; a card that names a new origin at every fetch must not grow the map without end */
const MAX_LEARNED_POOLS = 32;

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

export type UpstreamFailure = 'connect_failed' | 'timeout' | 'failed' | 'egress_refused';

export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamFailure,
    message: string,
  ) {
    super(message);
  }
}

/** response headers relayed to the client; hop-by-hop and length headers are the kernel's to write */
const RELAYED = new Set(['content-type', 'cache-control', 'a2a-version', 'a2a-extensions', 'x-accel-buffering']);

export class Upstreams {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly o: UpstreamOptions) {}

  private async pool(url: URL, learned: boolean): Promise<Pool> {
    // a learned URL on an origin some peer is configured with still gets the checked pool
    const key = `${learned ? 'egress ' : ''}${url.origin}`;
    let p = this.pools.get(key);
    if (p) return p;
    const { Pool, buildConnector } = await loadUndici();
    p = this.pools.get(key); // another request may have made it while the module loaded
    if (!p) {
      p = new Pool(url.origin, {
        connections: this.o.connections,
        connect: learned ? egressConnector(this.o.egress, buildConnector, { timeout: this.o.connectTimeoutMs }) : { timeout: this.o.connectTimeoutMs },
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
        keepAliveTimeout: 30_000,
        pipelining: 1,
      });
      this.pools.set(key, p);
      if (learned) this.evictLearned();
    }
    return p;
  }

  /** the oldest learned pools beyond the cap are closed (their in-flight requests finish first) */
  private evictLearned(): void {
    const learned = [...this.pools.keys()].filter((k) => k.startsWith('egress '));
    for (const k of learned.slice(0, Math.max(0, learned.length - MAX_LEARNED_POOLS))) {
      void this.pools.get(k)?.close().catch(() => undefined);
      this.pools.delete(k);
    }
  }

  /** `learned`: the URL came from a peer's card, not from the configuration: egress-checked */
  async request(method: 'GET' | 'POST' | 'DELETE', url: URL, headers: Record<string, string>, body: Buffer | null, signal?: AbortSignal, learned = false): Promise<UpstreamResponse> {
    try {
      const pool = await this.pool(url, learned);
      // a CLIENT span; its traceparent replaces any the client sent (core/obs/tracing.ts)
      const r = await tracedClient(`a2a ${method}`, url, headers, () => pool.request({ method, path: url.pathname + url.search, headers, body: body ?? undefined, signal }));
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) {
        if (RELAYED.has(k) && v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      return { status: r.statusCode, headers: out, body: r.body };
    } catch (err) {
      throw classify(err);
    }
  }

  /** a small JSON document (an AgentCard, a JWKS): read whole, capped */
  async json(url: URL, signal: AbortSignal | undefined, cap = 256 * 1024, headers: Record<string, string> = {}): Promise<{ status: number; value: unknown }> {
    const r = await this.request('GET', url, { accept: 'application/json', ...headers }, null, signal);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const c of r.body) {
        size += (c as Buffer).length;
        if (size > cap) {
          r.body.destroy();
          throw new UpstreamError('failed', `document larger than ${cap} bytes`);
        }
        chunks.push(c as Buffer);
      }
    } catch (err) {
      throw err instanceof UpstreamError ? err : classify(err);
    }
    let value: unknown;
    try {
      value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new UpstreamError('failed', 'not JSON');
    }
    return { status: r.status, value };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }
}

function classify(err: unknown): UpstreamError {
  if (err instanceof EgressRefused) return new UpstreamError('egress_refused', err.message);
  const code = (err as { code?: string }).code ?? '';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new UpstreamError('timeout', code);
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code)) return new UpstreamError('connect_failed', code);
  return new UpstreamError('failed', code || (err as Error).name || 'error');
}
