import { Readable } from 'node:stream';
import { sha256Hex } from '../../core/canonical.js';
import { HttpError, Problems } from '../../core/errors.js';
import { jsonDepth } from '../../core/json-depth.js';
import type { Reply, RequestContext } from '../../core/types.js';
import type { McpServer } from './config.js';
import { isToolDefinition, type ToolDefinition } from './definitions.js';
import { McpProblems } from './errors.js';
import { denialResult, gateToolCall, VERDICT_META, type GateDeps } from './gate.js';
import { methodLabel, type McpMetrics } from './metrics.js';
import { LISTING_COLLECTION, Listings } from './listings.js';
import { SESSION_COLLECTION, type McpExpiry, type SessionRecord } from './expiry.js';
import { UnhashableDefinition, type PinEvent, type Pins } from './pins.js';
import { formatEvent, SseParser } from './sse.js';

/**
 * The Streamable HTTP relay. One POST carries one JSON-RPC message; the answer comes back as JSON or
 * as an SSE stream, and is relayed in the same form and order, with two rewrites: a tools/list
 * result loses every tool whose definition is not pinned, and a tools/call result carries the
 * verdict that let the call through. A denied call never reaches the server.
 */

export interface RelayDeps extends GateDeps {
  pins: Pins;
  listings: Listings;
  expiry: McpExpiry;
  metrics: McpMetrics;
  timeoutMs: number;
  /** server.max_json_depth: an answer is re-serialised and hashed, so it is held to the request bodies' nesting cap */
  maxJsonDepth: number;
  store: import('../../core/store.js').Store;
  /** audit entries and metrics for what a tools/list review noticed */
  onPinEvents(ctx: RequestContext, events: PinEvent[]): Promise<void>;
}

interface JsonRpc {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

const FORWARD_HEADERS = ['accept', 'mcp-protocol-version', 'last-event-id'];
/**
 * An answer read whole (to be reviewed, or relayed as text) is capped like one SSE event: past it the
 * upstream request is aborted, so a server cannot make the sidecar hold an answer of any size.
 */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const sessionKey = (server: string, sid: string) => sha256Hex(`${server}\0${sid}`);
/** the server's JSON, refused before it is parsed when it nests past the cap (every walk after it recurses) */
function checkDepth(d: RelayDeps, server: McpServer, text: string): void {
  if (jsonDepth(text, d.maxJsonDepth) > d.maxJsonDepth) {
    throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered JSON nested deeper than ${d.maxJsonDepth} levels`);
  }
}
const header = (ctx: RequestContext, name: string) => {
  const v = ctx.headers[name];
  return typeof v === 'string' ? v : undefined;
};

function agentOf(ctx: RequestContext): { agent_id: string; org_id: string } {
  const p = ctx.principal;
  if (!p?.agentId) throw new HttpError(McpProblems.agentRequired, 'an agent token (X-Agent-Token) is required');
  return { agent_id: p.agentId, org_id: p.orgId };
}

/** A session belongs to the agent that initialized it; anyone else gets "no such session". */
async function checkSession(d: RelayDeps, ctx: RequestContext, server: string, agentId: string): Promise<string | undefined> {
  const sid = header(ctx, 'mcp-session-id');
  if (sid === undefined) return undefined;
  const key = sessionKey(server, sid);
  const rec = await d.store.collection<SessionRecord>(SESSION_COLLECTION).get(key);
  if (!rec || rec.agent_id !== agentId || rec.server !== server) throw new HttpError(McpProblems.sessionNotFound, 'no MCP session with this id for this agent and server');
  if (d.expiry.expired(rec.created_at)) {
    // its own agent asks: the binding and its listings go now rather than at the next sweep
    await d.store.commit([
      { collection: SESSION_COLLECTION, key },
      { collection: LISTING_COLLECTION, key: Listings.keyOf(server, sid, agentId) },
    ]);
    throw new HttpError(McpProblems.sessionNotFound, 'this MCP session has expired (mcp.session_ttl_seconds): initialize a new one');
  }
  return sid;
}

async function upstream(d: RelayDeps, ctx: RequestContext, server: McpServer, method: 'POST' | 'DELETE', sid: string | undefined, body?: string) {
  const headers: Record<string, string> = { ...server.headers };
  for (const h of FORWARD_HEADERS) {
    const v = header(ctx, h);
    if (v !== undefined) headers[h] = v;
  }
  headers.accept ??= 'application/json, text/event-stream';
  if (sid !== undefined) headers['mcp-session-id'] = sid;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error('deadline')), d.timeoutMs);
  timer.unref();
  // a client that leaves before the server answers takes the upstream request with it
  const onGone = () => ac.abort(new Error('client gone'));
  ctx.signal.addEventListener('abort', onGone, { once: true });
  ac.signal.addEventListener('abort', () => ctx.signal.removeEventListener('abort', onGone), { once: true });
  try {
    const res = await fetch(server.url, { method, headers, body, signal: ac.signal, redirect: 'manual' });
    return { res, ac, timer };
  } catch {
    clearTimeout(timer);
    if (ac.signal.aborted) throw new HttpError(McpProblems.upstreamTimeout, `MCP server ${server.name} did not answer within ${d.timeoutMs} ms`);
    throw new HttpError(McpProblems.upstreamUnavailable, `MCP server ${server.name} cannot be reached`);
  }
}

export async function relayPost(d: RelayDeps, ctx: RequestContext, server: McpServer): Promise<Reply> {
  const agent = agentOf(ctx);
  const msg = ctx.body as JsonRpc;
  const sid = await checkSession(d, ctx, server.name, agent.agent_id);
  const isRequest = typeof msg.method === 'string' && msg.id !== undefined && msg.id !== null;
  d.metrics.requests.inc({ server: server.name, method: methodLabel(msg.method) });

  const folded = typeof msg.method === 'string' ? msg.method.normalize('NFKC').trim().toLowerCase() : '';
  if ((folded === 'tools/call' || folded === 'tools/list') && msg.method !== folded) {
    // JSON-RPC names are case-sensitive, but a server that matches them loosely would run `Tools/Call`
    // past the gate below, or answer `Tools/List` past the review: only the exact names are relayed
    throw new HttpError(Problems.validation, `${JSON.stringify(msg.method)} is not a method; did you mean ${folded}?`, { errors: [{ field: '/body/method', message: `write it exactly ${folded}` }] });
  }
  if (msg.method === 'tools/call' && !isRequest) {
    // JSON-RPC runs a notification's method and only skips the reply: a tools/call without an id
    // would reach a server that follows it without passing the gate below
    throw new HttpError(Problems.validation, 'tools/call is a request: it needs an id', { errors: [{ field: '/body/id', message: 'required for tools/call' }] });
  }
  let verdict: { jwt: string; id: string } | null = null;
  const clientMeta = msg.params?._meta;
  if (clientMeta && typeof clientMeta === 'object' && Object.hasOwn(clientMeta, VERDICT_META)) {
    // only proofgate puts a verdict there: a client's own (replayed or forged) never reaches the server
    const { [VERDICT_META]: _dropped, ...rest } = clientMeta as Record<string, unknown>;
    msg.params = { ...msg.params, _meta: rest };
  }
  if (isRequest && msg.method === 'tools/call') {
    const g = await gateToolCall(d, server.name, agent.agent_id, msg.params);
    if (!g.allow) return { status: 200, headers: { 'content-type': 'application/json' }, body: { jsonrpc: '2.0', id: msg.id, result: denialResult(g) } };
    verdict = { jwt: g.verdict, id: g.verdict_id };
    const params = msg.params as Record<string, unknown>;
    const meta = params._meta && typeof params._meta === 'object' && !Array.isArray(params._meta) ? (params._meta as Record<string, unknown>) : {};
    msg.params = { ...params, _meta: { ...meta, [VERDICT_META]: verdict.jwt } };
  }

  const { res, ac, timer } = await upstream(d, ctx, server, 'POST', sid, JSON.stringify(msg));
  const headers: Record<string, string> = {};
  const type = res.headers.get('content-type') ?? '';
  if (type) headers['content-type'] = type;
  const newSid = res.headers.get('mcp-session-id');
  if (newSid) {
    headers['mcp-session-id'] = newSid;
    if (msg.method === 'initialize' && res.ok) {
      const rec: SessionRecord = { server: server.name, agent_id: agent.agent_id, org_id: agent.org_id, created_at: new Date().toISOString() };
      // insert, never overwrite: a session id another agent already holds stays theirs
      if (!(await d.store.collection<SessionRecord>(SESSION_COLLECTION).insert(sessionKey(server.name, newSid), rec))) {
        const held = await d.store.collection<SessionRecord>(SESSION_COLLECTION).get(sessionKey(server.name, newSid));
        if (held?.agent_id !== agent.agent_id) {
          ac.abort();
          clearTimeout(timer);
          throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} handed out a session id that is already in use`);
        }
      }
    }
  }

  /**
   * undefined: a result for a request other than the one relayed, dropped. Clients match a response to
   * any of their pending requests (the SDK's after Number(), so `"7"` answers 7): a tools/list result
   * slipped into another request's answer, or under an id of another type, would reach the client
   * unreviewed. One POST carries one request (batches are refused), so any other result is stray.
   * A message with a result is a response even when it also names a method: a client that tells
   * responses by their result would take it as one. A second result under the request's own id is
   * stray too: two tools/list results, each reviewed alone, are two listings in one answer.
   */
  let answered = false;
  const rewrite = async (m: JsonRpc): Promise<JsonRpc | undefined> => {
    if (!m || typeof m !== 'object' || !m.result || typeof m.result !== 'object') return m;
    if (!isRequest || String(m.id) !== String(msg.id) || answered) return undefined;
    // set before the first await: a batch's messages are rewritten concurrently
    answered = true;
    if (msg.method === 'tools/list') {
      // a list that is not a list cannot be reviewed: a lenient client might still read tools from it
      if (!Array.isArray(m.result.tools)) throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered tools/list without a tools array`);
      const tools = (m.result.tools as unknown[]).filter(isToolDefinition) as ToolDefinition[];
      // a page is reviewed with the pages before it in the same listing: a name they listed is a duplicate
      const page = await d.listings.page(Listings.keyOf(server.name, sid, agent.agent_id), server.name, msg.params?.cursor, tools.map((t) => t.name), m.result.nextCursor);
      if (!page.ok && page.reason === 'too_many') throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} listed ${page.detail}`);
      // what the MCP spec has a server answer for a cursor it does not know (-32602 invalid params)
      if (!page.ok) return { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: `proofgate: ${page.detail}` } };
      const review = await d.pins.review(server.name, tools, page.earlier).catch((err) => {
        if (err instanceof UnhashableDefinition) throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} listed a tool definition that cannot be hashed: ${err.message}`);
        throw err;
      });
      if (page.complete) await d.pins.clearDuplicates(server.name, page.complete.startedAt, page.complete.listedOnce);
      for (const w of review.withheld) d.metrics.withheld.inc({ server: server.name, status: w.status });
      if (review.events.length) await d.onPinEvents(ctx, review.events);
      return { ...m, result: { ...m.result, tools: review.visible } };
    }
    if (msg.method === 'tools/call' && verdict) {
      const meta = m.result._meta && typeof m.result._meta === 'object' ? (m.result._meta as Record<string, unknown>) : {};
      return { ...m, result: { ...m.result, _meta: { ...meta, [VERDICT_META]: verdict.jwt } } };
    }
    return m;
  };

  if (!res.body || res.status === 202 || res.status === 204) {
    clearTimeout(timer);
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status, headers, body: undefined };
  }
  if (res.ok && isRequest && !type.startsWith('text/event-stream') && !type.startsWith('application/json')) {
    // an answer proofgate cannot read is an answer it cannot review: never relay it to a lenient client
    ac.abort();
    clearTimeout(timer);
    throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered ${type || 'without a content type'}, not JSON or an event stream`);
  }
  if (type.startsWith('text/event-stream')) {
    headers['cache-control'] = 'no-cache, no-store';
    const stream = Readable.from(relayEvents(res.body, rewrite, ac, timer, (text) => checkDepth(d, server, text)), { objectMode: false });
    // a generator waiting on the next upstream chunk only sees its return() once that chunk comes:
    // abort the upstream request as soon as the relayed stream is torn down
    stream.once('close', () => {
      clearTimeout(timer);
      ac.abort();
    });
    return { status: res.status, headers, body: stream };
  }
  let text: string;
  try {
    text = await readCapped(res.body, MAX_ANSWER_BYTES, ac);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(ac.signal.aborted ? McpProblems.upstreamTimeout : McpProblems.upstreamUnavailable, `MCP server ${server.name} broke off its answer`);
  } finally {
    clearTimeout(timer);
  }
  if (res.ok && type.startsWith('application/json')) {
    checkDepth(d, server, text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered invalid JSON`);
    }
    const out = Array.isArray(parsed) ? (await Promise.all(parsed.map((p) => rewrite(p as JsonRpc)))).filter((x) => x !== undefined) : await rewrite(parsed as JsonRpc);
    if (out === undefined) throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered with a result for another request`);
    return { status: res.status, headers: { ...headers, 'content-type': 'application/json' }, body: out };
  }
  return { status: res.status, headers, body: text };
}

/**
 * The SSE relay: each event is parsed, its JSON-RPC message rewritten when it answers the request
 * being relayed, and written out before the next event is read — so order is the server's. When the
 * client goes away the generator is closed, which aborts the upstream request.
 */
async function* relayEvents(
  body: ReadableStream<Uint8Array>,
  rewrite: (m: JsonRpc) => Promise<JsonRpc | undefined>,
  ac: AbortController,
  timer: NodeJS.Timeout,
  checkDepth: (text: string) => void,
): AsyncGenerator<string> {
  const parser = new SseParser(MAX_ANSWER_BYTES);
  const decoder = new TextDecoder();
  const out = async (events: ReturnType<SseParser['push']>) => {
    let s = '';
    for (const ev of events) {
      if (ev.data && ev.comment === undefined) {
        // too deep cuts the stream off, as an event too large does
        checkDepth(ev.data);
        let m: unknown;
        try {
          m = JSON.parse(ev.data);
        } catch {
          m = undefined;
        }
        // re-serialised from the parsed value, so the client reads exactly what was reviewed
        if (Array.isArray(m)) {
          const kept = (await Promise.all(m.map((x) => (x && typeof x === 'object' ? rewrite(x as JsonRpc) : x)))).filter((x) => x !== undefined);
          if (!kept.length) continue;
          ev.data = JSON.stringify(kept);
        } else if (m && typeof m === 'object') {
          const r = await rewrite(m as JsonRpc);
          if (r === undefined) continue;
          ev.data = JSON.stringify(r);
        }
      }
      s += formatEvent(ev);
    }
    return s;
  };
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      const s = await out(parser.push(decoder.decode(chunk, { stream: true })));
      if (s) yield s;
    }
    const s = await out(parser.end());
    if (s) yield s;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number, ac: AbortController): Promise<string> {
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const c of body as unknown as AsyncIterable<Uint8Array>) {
    size += c.byteLength;
    if (size > cap) {
      ac.abort();
      throw new HttpError(McpProblems.upstreamProtocol, `the MCP server's answer is larger than ${cap} bytes`);
    }
    chunks.push(c);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export async function relayDelete(d: RelayDeps, ctx: RequestContext, server: McpServer): Promise<Reply> {
  const agent = agentOf(ctx);
  const sid = await checkSession(d, ctx, server.name, agent.agent_id);
  if (sid === undefined) throw new HttpError(McpProblems.sessionRequired, 'DELETE needs the Mcp-Session-Id header of the session to end');
  const { res, ac, timer } = await upstream(d, ctx, server, 'DELETE', sid);
  const text = await readCapped(res.body, MAX_ANSWER_BYTES, ac).catch(() => '');
  clearTimeout(timer);
  if (res.ok) {
    await d.store.collection<SessionRecord>(SESSION_COLLECTION).delete(sessionKey(server.name, sid));
    await d.listings.end(Listings.keyOf(server.name, sid, agent.agent_id));
  }
  const type = res.headers.get('content-type');
  return { status: res.status, headers: type ? { 'content-type': type } : {}, body: text || undefined };
}
