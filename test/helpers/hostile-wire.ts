import { createServer, request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A hostile upstream on the wire, for any proxy that relays a peer's HTTP answers (the MCP proxy,
 * the A2A routes): a tiny node:http server whose answers the test chooses per request, answer
 * makers for each form a lying peer uses (JSON a strict parser refuses and a lenient one reads,
 * duplicate keys, oversized strings, non-2xx with a body, event streams split at any byte, content
 * types that lie), and the Host/Origin spellings a DNS-rebinding page sends. Nothing here knows a
 * protocol: the test builds the message, the helper breaks it.
 */

/** One request the upstream received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  text: string;
  /** the body as JSON, or undefined when it is not */
  json: any;
}

/** Writes one whole HTTP answer. */
export type AnswerMaker = (res: ServerResponse, req: Received) => void | Promise<void>;

export interface HostileUpstream {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Starts the upstream; `route` picks the answer of each request (it sees every one, in order). */
export async function startHostileUpstream(route: (req: Received) => AnswerMaker): Promise<HostileUpstream> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, text, json };
      received.push(r);
      // every chunk its own segment, so a split written is a split sent
      res.socket?.setNoDelay(true);
      Promise.resolve()
        .then(() => route(r)(res, r))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const write = (res: ServerResponse, chunk: string) => new Promise<void>((r, j) => res.write(chunk, (err) => (err ? j(err) : r())));

/** `text` as the whole body, under any status and content type (a lying one too). */
export function bodyAnswer(text: string, o: { status?: number; type?: string | null } = {}): AnswerMaker {
  return (res) => {
    const headers: Record<string, string> = {};
    const type = o.type === undefined ? 'application/json' : o.type;
    if (type !== null) headers['content-type'] = type;
    res.writeHead(o.status ?? 200, headers).end(text);
  };
}

/** `text` sent in pieces cut at `offsets` (each piece written and flushed before the next). */
export function chunkedAnswer(text: string, offsets: number[], o: { status?: number; type?: string } = {}): AnswerMaker {
  return async (res) => {
    res.writeHead(o.status ?? 200, { 'content-type': o.type ?? 'text/event-stream' });
    const cuts = [0, ...offsets.filter((x) => x > 0 && x < text.length).sort((a, b) => a - b), text.length];
    for (let i = 1; i < cuts.length; i++) await write(res, text.slice(cuts[i - 1], cuts[i]));
    res.end();
  };
}

/** An event stream of these events, as one body. */
export function sseAnswer(events: string[], o: { status?: number; type?: string } = {}): AnswerMaker {
  return chunkedAnswer(events.join(''), [], o);
}

/**
 * One server-sent event. `data` holding newlines goes out as several `data:` lines (a reader joins
 * them with \n again); `eol` is the line end (LF, CRLF or CR: all three are SSE).
 */
export function sseEvent(data: string, o: { event?: string; id?: string; eol?: '\n' | '\r\n' | '\r' } = {}): string {
  const eol = o.eol ?? '\n';
  let s = '';
  if (o.id !== undefined) s += `id: ${o.id}${eol}`;
  if (o.event !== undefined) s += `event: ${o.event}${eol}`;
  for (const line of data.split('\n')) s += `data: ${line}${eol}`;
  return s + eol;
}

/** Every way to cut `text` in two: the offsets 1 … length-1. */
export function everyCut(text: string): number[] {
  return Array.from({ length: Math.max(0, text.length - 1) }, (_, i) => i + 1);
}

export type JsonPath = ReadonlyArray<string | number>;

/**
 * `value` serialised with the member at `path` replaced by `raw`, written as is: the way to put
 * a token no serialiser writes (NaN, Infinity) or a key twice where a lenient parser reads it.
 */
export function jsonWithRaw(value: unknown, path: JsonPath, raw: (member: string) => string): string {
  const marker = `\u0000hostile-wire-${Math.random().toString(36).slice(2)}\u0000`;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  const key = path[path.length - 1];
  at[key] = marker;
  const text = JSON.stringify(copy);
  const quoted = JSON.stringify(marker);
  const i = text.indexOf(quoted);
  // an array element has no key to repeat; an object member does, and starts before its value
  const keyText = typeof key === 'string' ? `${JSON.stringify(key)}:` : '';
  const start = i - keyText.length;
  return text.slice(0, start) + raw(keyText) + text.slice(i + quoted.length);
}

/**
 * JSON that a strict parser refuses (or reads other than a lenient one), made from a valid value by
 * tampering with the member at a path. `shadow` is what a parser that keeps the first of two keys
 * reads there (JSON.parse keeps the last, the member's own value).
 */
export interface Tamper {
  name: string;
  apply(value: unknown, path: JsonPath): string;
}

export function hostileJson(shadow: unknown): Tamper[] {
  const member = (value: unknown, path: JsonPath) => {
    let v = value as Record<string | number, unknown>;
    for (const k of path) v = v[k] as Record<string | number, unknown>;
    return JSON.stringify(v);
  };
  return [
    { name: 'NaN', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}NaN`) },
    { name: 'Infinity', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}Infinity`) },
    { name: '-Infinity', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}-Infinity`) },
    { name: 'duplicate key (first one the shadow)', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}${JSON.stringify(shadow)},${k}${member(v, p)}`) },
    { name: 'duplicate key spelled with an escape', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k.replace(/^"(.)/, (_m, c: string) => `"\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}${JSON.stringify(shadow)},${k}${member(v, p)}`) },
    { name: 'block comment', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}/* ${JSON.stringify(shadow)} */${member(v, p)}`) },
    { name: 'line comment', apply: (v) => `// ${JSON.stringify(shadow)}\n${JSON.stringify(v)}` },
    { name: 'trailing garbage', apply: (v) => `${JSON.stringify(v)} ${JSON.stringify(shadow)}` },
    { name: 'trailing comma', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}${member(v, p)},`) },
    { name: 'single-quoted string', apply: (v, p) => jsonWithRaw(v, p, (k) => `${k}'${String(shadow).replace(/'/g, '')}'`) },
  ];
}

/** A JSON string member of about `bytes` bytes (past a relay's cap for one answer or event). */
export const oversized = (bytes: number) => 'x'.repeat(bytes);

/** Status codes a peer answers with while still carrying a body a lenient client might read. */
export const NON_2XX = [400, 401, 404, 409, 500, 502, 503];

/** Content types that lie about a body, or that a strict reader must not take for JSON. */
export const LYING_TYPES = ['text/plain', 'text/html', 'application/octet-stream', 'application/x-ndjson', 'application/jsonx', null] as const;

/**
 * Host header values a request reaching a loopback listener may carry when a browser page drives
 * it: a rebinding domain, the loopback name as a subdomain of it, an IP address as a subdomain, a
 * name with user info or a path (refused as malformed, never split), an empty one.
 */
export const FOREIGN_HOSTS = [
  'evil.example.com',
  'EVIL.example.com.',
  'evil.example.com:80',
  'localhost.evil.example.com',
  '127.0.0.1.evil.example.com',
  '127.0.0.1.nip.io',
  'localhost@evil.example.com',
  'evil.example.com/localhost',
  'xn--lcalhost-6za.example',
  '',
];

/** Origin values of pages that are not the listener's own (an opaque origin too). */
export const FOREIGN_ORIGINS = [
  'http://evil.example.com',
  'https://evil.example.com',
  'null',
  'http://localhost.evil.example.com',
  'http://127.0.0.1.evil.example.com',
  'file://',
  'http://localhost@evil.example.com',
  'not a url',
];

/** Spellings of the loopback listener at `port` that name the same host (case, trailing dot, IPv4, IPv6). */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `localhost.:${port}`, `[::1]:${port}`];
}

/**
 * One HTTP request with headers fetch will not send as given (Host above all), over node:http.
 * Returns the status, headers and body text; a JSON body is parsed when it is JSON.
 */
export function rawRequest(url: string, o: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string; body: any }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: o.method ?? 'GET', headers: o.headers, setHost: o.headers?.host === undefined && o.headers?.Host === undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}
