import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * An official-SDK MCP server that uses what the standalone stream carries: tools that change at run
 * time (`notifications/tools/list_changed`), a subscribable resource
 * (`notifications/resources/updated`), an event store so that any stream can be resumed with
 * `Last-Event-ID`, and a tool (`web_search`) that closes its own POST stream after the priming event and
 * answers later (MCP 2025-11-25 SSE polling: the client comes back with GET).
 */
export interface StreamUpstream {
  url: string;
  /** the SDK server of each session, in the order the sessions began, and its transport */
  servers: Server[];
  transports: StreamableHTTPServerTransport[];
  state: { weatherDescription: string; subscribed: string[] };
  /** every GET the server received: its Last-Event-ID, when any */
  gets: Array<{ lastEventId: string | undefined }>;
  /** resolves once the server has opened a GET stream (the n-th, from 1) */
  getOpened(n: number): Promise<void>;
  /** resolves once the n-th GET stream (from 1) has closed on the server's side */
  getClosed(n: number): Promise<void>;
  /** resolves once a GET with a Last-Event-ID arrived */
  resumed: Promise<string>;
  /** lets `web_search` answer */
  releaseSlow(): void;
  close(): Promise<void>;
}

/** Events in memory, replayed per stream (the SDK's example store cannot resume the standalone stream). */
class Events implements EventStore {
  private readonly events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];
  private n = 0;
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `ev${++this.n}`;
    this.events.push({ id, streamId, message });
    return id;
  }
  async getStreamIdForEventId(id: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === id)?.streamId;
  }
  async replayEventsAfter(last: string, { send }: { send: (id: string, m: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const i = this.events.findIndex((e) => e.id === last);
    if (i < 0) return '';
    const streamId = this.events[i].streamId;
    for (const e of this.events.slice(i + 1)) {
      // a priming event stores an empty message: nothing to replay
      if (e.streamId === streamId && Object.keys(e.message).length) await send(e.id, e.message);
    }
    return streamId;
  }
}

function mcpServer(u: StreamUpstream, slow: Promise<void>): Server {
  const server = new Server({ name: 'stream-fixture', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: { subscribe: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'get_weather', description: u.state.weatherDescription, inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
      { name: 'search', description: 'Searches the catalogue.', inputSchema: { type: 'object' as const, properties: { query: { type: 'string' } } } },
      { name: 'web_search', description: 'Searches slowly.', inputSchema: { type: 'object' as const, properties: { query: { type: 'string' } } } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    if (req.params.name === 'web_search') {
      // the client holds the priming event's id: it comes back for the answer with GET
      extra.closeSSEStream?.();
      await slow;
      return { content: [{ type: 'text', text: 'slow results' }] };
    }
    return { content: [{ type: 'text', text: `${req.params.name} done` }] };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'file:///sandbox/notes.txt', name: 'notes' }] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({ contents: [{ uri: req.params.uri, text: 'notes' }] }));
  server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    u.state.subscribed.push(req.params.uri);
    return {};
  });
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startStreamUpstream(): Promise<StreamUpstream> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let releaseSlow: () => void = () => {};
  const slow = new Promise<void>((r) => (releaseSlow = r));
  let resumedAt: (id: string) => void = () => {};
  const opened: Array<() => void> = [];
  const openedP: Array<Promise<void>> = [];
  const waitOpened = (n: number) => {
    while (openedP.length < n) openedP.push(new Promise<void>((r) => opened.push(r)));
    return openedP[n - 1];
  };
  let getsOpen = 0;
  const closed: Array<() => void> = [];
  const closedP: Array<Promise<void>> = [];
  const waitClosed = (n: number) => {
    while (closedP.length < n) closedP.push(new Promise<void>((r) => closed.push(r)));
    return closedP[n - 1];
  };
  const u: StreamUpstream = {
    url: '',
    servers: [],
    transports: [],
    state: { weatherDescription: 'Current weather for a city.', subscribed: [] },
    gets: [],
    getOpened: waitOpened,
    getClosed: waitClosed,
    resumed: new Promise<string>((r) => (resumedAt = r)),
    releaseSlow: () => releaseSlow(),
    close: async () => undefined,
  };
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      if (req.method === 'GET') {
        const last = req.headers['last-event-id'] as string | undefined;
        u.gets.push({ lastEventId: last });
        if (last) resumedAt(last);
        // the stream is registered by the time its headers go out
        const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => typeof res;
        res.writeHead = ((...a: unknown[]) => {
          const out = writeHead(...a);
          if (a[0] === 200) {
            const n = ++getsOpen;
            waitOpened(n);
            waitClosed(n);
            opened[n - 1]();
            res.once('close', () => closed[n - 1]());
          }
          return out;
        }) as typeof res.writeHead;
      }
      const sid = req.headers['mcp-session-id'];
      let tr = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!tr) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore: new Events(),
          retryInterval: 10,
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        const server = mcpServer(u, slow);
        u.servers.push(server);
        u.transports.push(created);
        await server.connect(created);
        tr = created;
      }
      await tr.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  u.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  u.close = async () => {
    releaseSlow();
    for (const tr of transports.values()) await tr.close().catch(() => {});
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
  return u;
}

export interface RawEvent {
  id?: string;
  event?: string;
  retry?: string;
  data: string;
}

/**
 * A GET event stream read the way a client's parser reads it (one event per blank line, `data:`
 * lines joined), independent of the proxy's own parser: `next()` is the next event, or null at the
 * end of the stream.
 */
export async function openEvents(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; body: string; next(): Promise<RawEvent | null>; close(): void }> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  if (res.headers.get('content-type') !== 'text/event-stream') {
    const body = await res.text();
    return { status: res.status, headers: res.headers, body, next: async () => null, close: () => undefined };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  const next = async (): Promise<RawEvent | null> => {
    for (;;) {
      const at = buf.indexOf('\n\n');
      if (at !== -1) {
        const block = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const ev: RawEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const i = line.indexOf(':');
          const [k, v] = i === -1 ? [line, ''] : [line.slice(0, i), line.slice(i + 1).replace(/^ /, '')];
          if (k === 'data') data.push(v);
          else if (k === 'id' || k === 'event' || k === 'retry') ev[k] = v;
        }
        ev.data = data.join('\n');
        if (data.length || ev.id !== undefined) return ev;
        continue;
      }
      const r = await reader.read();
      if (r.done) return null;
      buf += r.value.replace(/\r\n?/g, '\n');
    }
  };
  return { status: res.status, headers: res.headers, body: '', next, close: () => ac.abort() };
}
