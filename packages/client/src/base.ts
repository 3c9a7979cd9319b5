import { isLoopbackHost } from '../../../core/http/loopback.js';
import { FormData as UndiciFormData, request, type Dispatcher } from 'undici';

/**
 * The transport under the generated `ProofgateClient`: undici, one credential per kind, JSON or
 * multipart bodies, problem+json errors as `ProofgateError`. Retries happen only for 429 and 503,
 * the two statuses that promise the same request may succeed later, and wait what `Retry-After` says.
 */
export interface ClientOptions {
  /** e.g. http://127.0.0.1:8080 (the client adds /v1) */
  baseUrl: string;
  apiKey?: string;
  /** user access token from POST /auth/signin */
  token?: string;
  agentToken?: string;
  /** attempts after the first for 429/503 (default 2) */
  retries?: number;
  /** longest wait for one Retry-After, in ms (default 30 s): a longer one is returned as the error */
  maxRetryWaitMs?: number;
  /** per-attempt deadline in ms, from sending to the last byte of the answer (default 60 s) */
  timeoutMs?: number;
  /**
   * send a credential over plain http:// to a host that is not loopback (default false: refused
   * before anything is sent, since anyone on the path reads the key or token)
   */
  allowInsecureHttp?: boolean;
  /** largest answer body read, in bytes (default 64 MiB): past it the read is aborted and the call rejects */
  maxResponseBytes?: number;
  dispatcher?: Dispatcher;
  /** injectable for tests */
  sleep?: (ms: number) => Promise<void>;
}

export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface OperationSpec {
  method: string;
  path: string;
  auth: 'none' | 'apiKey' | 'jwt' | 'agentToken' | string;
  /** further kinds the route accepts: the first kind (auth, then these) the client holds is sent */
  authAlso?: string[];
  body: 'none' | 'json' | 'multipart' | 'raw' | string;
  accept: string;
}

export interface CallInput {
  params?: Record<string, string>;
  body?: unknown;
  form?: FormData;
  raw?: Uint8Array;
  query?: Record<string, string | number | boolean | undefined>;
}

/** A non-2xx answer: the service's problem+json (RFC 9457) with the HTTP status. */
export class ProofgateError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { type?: string; title?: string; detail?: string; constraint_id?: string; errors?: unknown[] } & Record<string, unknown>,
    readonly headers: Record<string, string>,
  ) {
    super(`${status} ${problem.title ?? 'error'}${problem.detail ? `: ${problem.detail}` : ''}`);
    this.name = 'ProofgateError';
  }
}

/**
 * A credential the client will not send: over plain http:// to a host that is not loopback, without
 * `allowInsecureHttp`. Raised before any byte is sent.
 */
export class InsecureTransportError extends TypeError {
  constructor(readonly host: string) {
    super(`refusing to send a credential over plain http:// to ${host}: use https://, a loopback address (127.0.0.1, ::1, localhost), or allowInsecureHttp`);
    this.name = 'InsecureTransportError';
  }
}

export { isLoopbackHost };

const CREDENTIAL_HEADERS = new Set(['x-api-key', 'x-agent-token', 'authorization', 'proxy-authorization', 'cookie']);

function retryAfterMs(h: string | undefined): number | null {
  if (!h) return null;
  const s = Number(h);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(h);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function flat(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** An answer longer than `maxResponseBytes`: its read was aborted there. */
export class ResponseTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResponseTooLargeError';
  }
}

export class ClientBase {
  protected readonly opts: Required<Pick<ClientOptions, 'retries' | 'maxRetryWaitMs' | 'timeoutMs' | 'maxResponseBytes'>> & ClientOptions;
  /** the host a credential may not be sent to over plain http, or null when it may */
  private readonly exposedHost: string | null;

  constructor(opts: ClientOptions) {
    if (!/^https?:\/\//.test(opts.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    const max = opts.maxResponseBytes;
    if (max !== undefined && !(Number.isSafeInteger(max) && max > 0)) throw new TypeError('maxResponseBytes must be a positive integer');
    // defaults after the spread too: an option passed as `undefined` (a config value not set) keeps
    // its default instead of turning off retries or the deadline
    this.opts = {
      ...opts,
      retries: opts.retries ?? 2,
      maxRetryWaitMs: opts.maxRetryWaitMs ?? 30_000,
      timeoutMs: opts.timeoutMs ?? 60_000,
      baseUrl: opts.baseUrl.replace(/\/+$/, ''),
      maxResponseBytes: max ?? 64 * 1024 * 1024,
    };
    const u = new URL(this.opts.baseUrl);
    this.exposedHost = u.protocol === 'http:' && opts.allowInsecureHttp !== true && !isLoopbackHost(u.hostname) ? u.host : null;
  }

  private has(kind: string): boolean {
    return !!(kind === 'apiKey' ? this.opts.apiKey : kind === 'jwt' ? this.opts.token : kind === 'agentToken' ? this.opts.agentToken : false);
  }

  /** the route's credential: as the server chooses, the first accepted kind present; else `auth`'s (which says what is missing) */
  private credentialFor(spec: OperationSpec): Record<string, string> {
    return this.credential(spec.authAlso?.find((k) => !this.has(spec.auth) && this.has(k)) ?? spec.auth);
  }

  private credential(auth: string): Record<string, string> {
    if (auth === 'apiKey') {
      if (!this.opts.apiKey) throw new TypeError('this route needs an API key (ClientOptions.apiKey)');
      return { 'x-api-key': this.opts.apiKey };
    }
    if (auth === 'jwt') {
      if (!this.opts.token) throw new TypeError('this route needs a user token (ClientOptions.token)');
      return { authorization: `Bearer ${this.opts.token}` };
    }
    if (auth === 'agentToken') {
      if (!this.opts.agentToken) throw new TypeError('this route needs an agent token (ClientOptions.agentToken)');
      return { 'x-agent-token': this.opts.agentToken };
    }
    return {};
  }

  private url(spec: OperationSpec, input: CallInput): string {
    const path = spec.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      const v = input.params?.[name];
      if (typeof v !== 'string' || !v) throw new TypeError(`path parameter ${name} is required`);
      // `path` is a wildcard tail: its slashes separate segments, each encoded on its own
      const segments = name === 'path' ? v.split('/') : [v];
      // URL parsing removes `.` and `..` segments (encoded as %2e too), so they cannot be sent as
      // values: `{ id: '..' }` or a `path` of `../verify/code` would call another route with the credential
      if (segments.some((seg) => seg === '.' || seg === '..')) throw new TypeError(`path parameter ${name} may not be or hold a "." or ".." segment`);
      return segments.map(encodeURIComponent).join('/');
    });
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const q = qs.toString();
    return `${this.opts.baseUrl}/v1${path}${q ? `?${q}` : ''}`;
  }

  /**
   * The body as text, read chunk by chunk: a declared or actual length past maxResponseBytes
   * destroys the stream there, so a hostile or broken server cannot make the caller buffer gigabytes.
   */
  private async readCapped(res: Dispatcher.ResponseData, spec: OperationSpec): Promise<string> {
    const max = this.opts.maxResponseBytes;
    const tooLarge = () => {
      res.body.destroy();
      return new ResponseTooLargeError(`the answer to ${spec.method} ${spec.path} is larger than maxResponseBytes (${max} bytes)`);
    };
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw tooLarge();
      chunks.push(chunk);
    }
    return new TextDecoder().decode(Buffer.concat(chunks, size));
  }

  /** One operation, with the retry policy. Resolves to the parsed JSON (or the text of other media types). */
  protected async call<T>(spec: OperationSpec, input: CallInput, o: CallOptions = {}): Promise<T> {
    const url = this.url(spec, input);
    const headers: Record<string, string> = { accept: `${spec.accept}, application/problem+json`, ...this.credentialFor(spec), ...(o.headers ?? {}) };
    if (this.exposedHost && Object.entries(headers).some(([k, v]) => v && CREDENTIAL_HEADERS.has(k.toLowerCase()))) throw new InsecureTransportError(this.exposedHost);
    let body: string | Uint8Array | UndiciFormData | undefined;
    if (spec.body === 'json') {
      body = JSON.stringify(input.body ?? {});
      headers['content-type'] = 'application/json';
    } else if (spec.body === 'multipart') body = input.form as unknown as UndiciFormData;
    else if (spec.body === 'raw') {
      body = input.raw;
      headers['content-type'] = 'application/octet-stream';
    }
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let attempt = 0; ; attempt++) {
      // undici's headersTimeout and bodyTimeout bound each wait between bytes, not the answer: a
      // server sending a byte now and then held a caller (a CI job) forever. One deadline covers
      // the attempt from connecting to the last byte of the body.
      const deadline = AbortSignal.timeout(this.opts.timeoutMs);
      const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
      let res: Dispatcher.ResponseData;
      let text: string;
      try {
        res = await request(url, {
          method: spec.method as Dispatcher.HttpMethod,
          headers,
          body: body as never,
          signal,
          dispatcher: this.opts.dispatcher,
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
        });
        text = await this.readCapped(res, spec);
      } catch (err) {
        if (err instanceof ResponseTooLargeError) throw err;
        if (deadline.aborted && !o.signal?.aborted) throw new Error(`no complete answer from ${spec.method} ${spec.path} within ${this.opts.timeoutMs} ms`, { cause: err });
        throw err;
      }
      const h = flat(res.headers);
      if (res.statusCode >= 200 && res.statusCode < 300) {
        const type = h['content-type'] ?? '';
        if (!text) return undefined as T;
        return (type.includes('json') ? JSON.parse(text) : text) as T;
      }
      let problem: Record<string, unknown>;
      try {
        problem = JSON.parse(text) as Record<string, unknown>;
      } catch {
        problem = { title: text.slice(0, 200) || `HTTP ${res.statusCode}` };
      }
      const wait = retryAfterMs(h['retry-after']);
      const retryable = (res.statusCode === 429 || res.statusCode === 503) && attempt < this.opts.retries;
      if (!retryable || (wait !== null && wait > this.opts.maxRetryWaitMs)) throw new ProofgateError(res.statusCode, problem, h);
      // no Retry-After on a 503: back off briefly and exponentially
      await sleep(wait ?? 250 * 2 ** attempt);
    }
  }
}
