import type { Readable } from 'node:stream';
import type { Pool } from 'undici';

// undici is imported when the first peer is contacted: a sidecar that only intercepts never
// forwards, and the module costs ~15 MB of RSS at start-up
let undici: Promise<typeof import('undici')> | null = null;
const loadUndici = () => (undici ??= import('undici'));

/**
 * One undici keep-alive pool per peer origin, with deadlines: connecting, the response headers, and
 * the longest silence inside a body (an SSE stream that stops sending is cut, not held forever).
 * The body is handed back as a stream and relayed chunk by chunk; nothing is buffered or rewritten.
 */
export interface UpstreamOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  connections: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

export type UpstreamFailure = 'connect_failed' | 'timeout' | 'failed';

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

  private async pool(url: URL): Promise<Pool> {
    let p = this.pools.get(url.origin);
    if (p) return p;
    const { Pool } = await loadUndici();
    p = this.pools.get(url.origin); // another request may have made it while the module loaded
    if (!p) {
      p = new Pool(url.origin, {
        connections: this.o.connections,
        connect: { timeout: this.o.connectTimeoutMs },
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
        keepAliveTimeout: 30_000,
        pipelining: 1,
      });
      this.pools.set(url.origin, p);
    }
    return p;
  }

  async request(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body: Buffer | null, signal?: AbortSignal): Promise<UpstreamResponse> {
    try {
      const r = await (await this.pool(url)).request({ method, path: url.pathname + url.search, headers, body: body ?? undefined, signal });
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
  async json(url: URL, signal: AbortSignal | undefined, cap = 256 * 1024): Promise<{ status: number; value: unknown }> {
    const r = await this.request('GET', url, { accept: 'application/json' }, null, signal);
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
  const code = (err as { code?: string }).code ?? '';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new UpstreamError('timeout', code);
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code)) return new UpstreamError('connect_failed', code);
  return new UpstreamError('failed', code || (err as Error).name || 'error');
}
