import { sha256Hex } from '../../core/json/canonical.js';
import { HttpError, Problems } from '../../core/errors.js';
import { annotateRequest, tracedClient, tracedMessage, tracingEnabled, withTraceMeta } from '../../core/obs/tracing.js';
import { jsonDepth } from '../../core/json/depth.js';
import type { Reply, RequestContext } from '../../core/types.js';
import type { Attributes } from '@opentelemetry/api';
import type { McpServer } from './config.js';
import { isToolDefinition, type ToolDefinition } from './definitions.js';
import { McpProblems } from './errors.js';
import { denialResult, gateToolCall, VERDICT_META, type GateDeps } from './gate.js';
import { methodLabel, type McpMetrics } from './metrics.js';
import { LISTING_COLLECTION, Listings, MAX_PAGE_BYTES } from './listings.js';
import { SESSION_COLLECTION, type McpExpiry, type SessionRecord } from './expiry.js';
import { UnhashableDefinition, type PinEvent, type Pins } from './pins.js';
import { hasResultObject, reviewMessage, type ReviewState } from './relay-review.js';
import { admitListed } from './policy.js';
import { memberContext, noteNegotiated, relayBatch } from './batch.js';
import { MAX_ANSWER_BYTES, relayAnswer, relayDeleteAnswer, type JsonRpc } from './answer.js';
import { newToken, streamScope, type StreamRecords } from './streams.js';
import { discard, type McpUpstreams } from './upstream.js';
import { clientCanBeAsked, type OpeningStreams } from './stream-order.js';
import { markInitialized, streamElsewhere } from './session-order.js';

/**
 * The Streamable HTTP relay. One POST carries one JSON-RPC message (a batch is split: batch.ts); the answer comes back as JSON or
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
  store: import('../../core/store/store.js').Store;
  /** audit entries and metrics for what a tools/list review noticed */
  onPinEvents(ctx: RequestContext, events: PinEvent[]): Promise<void>;
  /** what each stream that relayed an event id was opened for (resumption: stream.ts) */
  streams: StreamRecords;
  /** the keep-alive pools to the servers (upstream.ts) */
  upstreams: McpUpstreams;
  /** the GETs being opened or expected now, which a session's POSTs wait for (stream-order.ts) */
  opening: OpeningStreams;
}

// Last-Event-ID is the client's wrapped id (event-ids.ts): only a GET resumes, with the server's own (stream.ts)
const FORWARD_HEADERS = ['accept', 'mcp-protocol-version'];
const sessionKey = (server: string, sid: string) => sha256Hex(`${server}\0${sid}`);
/** a session's key for the GET/POST order (stream-order.ts): in memory only, so not hashed */
export const orderKey = (server: string, sid: string) => `${server}\0${sid}`;
/** the server's JSON, refused before it is parsed when it nests past the cap (every walk after it recurses) */
export function checkDepth(d: RelayDeps, server: McpServer, text: string): void {
  if (jsonDepth(text, d.maxJsonDepth) > d.maxJsonDepth) {
    throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered JSON nested deeper than ${d.maxJsonDepth} levels`);
  }
}
export const header = (ctx: RequestContext, name: string) => {
  const v = ctx.headers[name];
  return typeof v === 'string' ? v : undefined;
};

export function agentOf(ctx: RequestContext): { agent_id: string; org_id: string } {
  const p = ctx.principal;
  if (!p?.agentId) throw new HttpError(McpProblems.agentRequired, 'an agent token (X-Agent-Token) is required');
  return { agent_id: p.agentId, org_id: p.orgId };
}

/** A session belongs to the agent that initialized it; anyone else gets "no such session". */
export async function checkSession(d: RelayDeps, ctx: RequestContext, server: string, agentId: string): Promise<string | undefined> {
  return (await sessionOf(d, ctx, server, agentId))?.sid;
}

/** As checkSession, with the session's record (its GET/POST order: session-order.ts) */
export async function sessionOf(d: RelayDeps, ctx: RequestContext, server: string, agentId: string): Promise<{ sid: string; key: string; rec: SessionRecord } | undefined> {
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
  return { sid, key, rec };
}

/**
 * `lastEventId`: the server's own id of the last event the client got (GET only); `accept`: in place
 * of the client's (the proxy's own answers to the server, stream.ts)
 */
/** `body` as a function: serialised inside the CLIENT span, so a message can carry that span's context in `_meta` */
export async function upstream(d: RelayDeps, ctx: RequestContext, server: McpServer, method: 'POST' | 'DELETE' | 'GET', sid: string | undefined, body?: string | (() => string), o: { lastEventId?: string; accept?: string; attributes?: Attributes } = {}) {
  const headers: Record<string, string> = { ...server.headers };
  for (const h of FORWARD_HEADERS) {
    const v = header(ctx, h);
    if (v !== undefined) headers[h] = v;
  }
  if (o.lastEventId !== undefined) headers['last-event-id'] = o.lastEventId;
  if (o.accept !== undefined) headers.accept = o.accept;
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
    // a CLIENT span; its traceparent replaces any the client sent (core/obs/tracing.ts)
    const spanName = o.attributes?.['mcp.method.name'] ? mcpSpanName(o.attributes) : `mcp ${method}`;
    const res = await tracedClient(spanName, server.url, headers, () => d.upstreams.request(server.url, method, headers, typeof body === 'function' ? body() : body, ac.signal), o.attributes);
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
  const session = await sessionOf(d, ctx, server.name, agent.agent_id);
  const sid = session?.sid;
  // after the session's GET stream, while one is being opened or expected after `initialized`
  // here (stream-order.ts) or, by the session's record, on another replica (session-order.ts)
  let held = session === undefined ? false : d.opening.after(orderKey(server.name, session.sid));
  if (held === false && session) held = streamElsewhere(d.store, session.key, session.rec);
  if (held !== false && (await held)) d.metrics.postsHeld.inc({ server: server.name });
  // written before the notification is answered: the client's next request, on any replica, finds it;
  // a store that cannot write it costs other replicas' wait, not the notification
  if (msg.method === 'notifications/initialized' && session) {
    await markInitialized(d.store, session.key, session.rec).catch((err: unknown) => ctx.log.warn({ err, server: server.name }, 'mcp: the session record could not say initialized'));
  }
  // a batch (MCP 2025-03-26): each member through this same relay, as if posted alone (batch.ts)
  if (Array.isArray(ctx.body)) {
    return relayBatch(ctx, { store: d.store, sessionKey: sid === undefined ? undefined : sessionKey(server.name, sid) }, (m) => relayPost(d, memberContext(ctx, m), server));
  }
  // with tracing off the message is relayed with no span and no attributes built (docs/tracing.md: off is free)
  if (!tracingEnabled()) return relayMessage(d, ctx, server, agent, sid, msg, undefined);
  const attributes = mcpAttributes(msg, sid);
  return tracedMessage(mcpSpanName(attributes), msg.params?._meta, attributes, () => relayMessage(d, ctx, server, agent, sid, msg, attributes));
}

/**
 * OpenTelemetry MCP semantic conventions (docs/tracing.md). The method and tool name are the
 * client's: a method outside the spec's list is recorded as `other` (the metrics' label) and a tool
 * name is cut to 128 characters, so a span name stays low-cardinality and an attribute bounded.
 */
function mcpAttributes(msg: JsonRpc, sid: string | undefined): Attributes {
  const a: Attributes = { 'mcp.method.name': methodLabel(msg.method), 'network.transport': 'tcp', 'network.protocol.name': 'http' };
  if (sid !== undefined && sid.length <= 256) a['mcp.session.id'] = sid;
  if ((typeof msg.id === 'string' && msg.id.length <= 128) || typeof msg.id === 'number') a['jsonrpc.request.id'] = String(msg.id);
  if (msg.method === 'tools/call') {
    a['gen_ai.operation.name'] = 'execute_tool';
    const name = msg.params?.name;
    if (typeof name === 'string' && name) a['gen_ai.tool.name'] = name.slice(0, 128);
  }
  return a;
}
const mcpSpanName = (a: Attributes) => (a['gen_ai.tool.name'] ? `${a['mcp.method.name']} ${a['gen_ai.tool.name']}` : String(a['mcp.method.name']));

async function relayMessage(d: RelayDeps, ctx: RequestContext, server: McpServer, agent: { agent_id: string; org_id: string }, sid: string | undefined, msg: JsonRpc, attributes: Attributes | undefined): Promise<Reply> {
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
    // the proxy's decision on the request span, as a verification's verdict is (core/verdict.ts)
    annotateRequest(g.allow ? { 'proofgate.verdict': 'FORWARDED', 'proofgate.admission': 'ADMIT' } : { 'proofgate.verdict': 'DENIED', 'proofgate.admission': 'DENY', 'proofgate.constraint_id': g.constraint_id });
    if (!g.allow) return { status: 200, headers: { 'content-type': 'application/json' }, body: { jsonrpc: '2.0', id: msg.id, result: denialResult(g) } };
    verdict = { jwt: g.verdict, id: g.verdict_id };
    const params = msg.params as Record<string, unknown>;
    const meta = params._meta && typeof params._meta === 'object' && !Array.isArray(params._meta) ? (params._meta as Record<string, unknown>) : {};
    msg.params = { ...params, _meta: { ...meta, [VERDICT_META]: verdict.jwt } };
  }

  // the client opens its GET stream now: the session's next POSTs wait for it (stream-order.ts)
  if (msg.method === 'notifications/initialized' && sid !== undefined) d.opening.initialized(orderKey(server.name, sid));
  // a listing that lifts a tools/list_changed mark must have been asked for after it (relist.ts)
  const sentAt = Date.now();
  // the trace context travels in `_meta` too (MCP's reserved traceparent/tracestate keys): the client's own is replaced by the proxy's CLIENT span
  const body = () => {
    const p = msg.params;
    if (!p || typeof p !== 'object' || Array.isArray(p)) return JSON.stringify(msg);
    const meta = p._meta && typeof p._meta === 'object' && !Array.isArray(p._meta) ? (p._meta as Record<string, unknown>) : {};
    const traced = withTraceMeta(meta);
    return JSON.stringify(traced === meta ? msg : { ...msg, params: { ...p, _meta: traced } });
  };
  const { res, ac, timer } = await upstream(d, ctx, server, 'POST', sid, body, { attributes });
  const headers: Record<string, string> = {};
  const newSid = res.header('mcp-session-id');
  if (newSid) {
    headers['mcp-session-id'] = newSid;
    if (msg.method === 'initialize' && res.ok) {
      const asks = clientCanBeAsked(msg.params);
      const rec: SessionRecord = { server: server.name, agent_id: agent.agent_id, org_id: agent.org_id, created_at: new Date().toISOString(), ...(asks ? { asks: true as const } : {}) };
      // insert, never overwrite: a session id another agent already holds stays theirs
      if (!(await d.store.collection<SessionRecord>(SESSION_COLLECTION).insert(sessionKey(server.name, newSid), rec))) {
        const held = await d.store.collection<SessionRecord>(SESSION_COLLECTION).get(sessionKey(server.name, newSid));
        if (held?.agent_id !== agent.agent_id) {
          ac.abort();
          clearTimeout(timer);
          discard(res.body);
          throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} handed out a session id that is already in use`);
        }
      }
      // its GET stream will be waited for once it has sent `initialized` (stream-order.ts)
      if (asks) d.opening.initializing(orderKey(server.name, newSid));
    }
  }

  /**
   * undefined: a result for a request other than the one relayed, dropped. Clients match a response to
   * any of their pending requests (the SDK's after Number(), so `"7"` answers 7): a tools/list result
   * slipped into another request's answer, or under an id of another type, would reach the client
   * unreviewed. One relay carries one request (a batch's members are relayed one by one), so any other result is stray.
   * A message with a result is a response even when it also names a method: a client that tells
   * responses by their result would take it as one. A second result under the request's own id is
   * stray too: two tools/list results, each reviewed alone, are two listings in one answer.
   */
  const state: ReviewState = { requestId: isRequest ? (msg.id as string | number) : undefined, claimed: false, verdict: msg.method === 'tools/call' && verdict ? verdict.jwt : undefined };
  // what a resume of this answer's stream needs to review it the same way (stream.ts)
  const events = d.streams.lazy(() => streamScope(server.name, sid ?? newSid ?? undefined, agent.agent_id), newToken, {
    server: server.name,
    agent_id: agent.agent_id,
    request_id: state.requestId ?? null,
    method: typeof msg.method === 'string' ? msg.method : null,
    ...(state.verdict !== undefined ? { verdict: state.verdict } : {}),
  });
  const listChanged = async () => {
    if (!state.listChanged) return;
    state.listChanged = false;
    await d.relist.mark(server.name);
  };
  const refuse = refuser(d, ctx, server, sid ?? newSid ?? undefined);
  const rewrite = async (m: JsonRpc): Promise<JsonRpc | undefined> => {
    // every method but tools/list: the same review a worker runs on a large answer (relay-review.ts)
    if (msg.method !== 'tools/list' || !hasResultObject(m)) {
      const out = reviewMessage(m, state);
      refuse(state);
      // the revision the server chose decides whether this session's batches are relayed (batch.ts)
      if (msg.method === 'initialize' && newSid && out !== undefined && String(out.id) === String(state.requestId)) await noteNegotiated(d.store, sessionKey(server.name, newSid), agent.agent_id, out);
      // marked before the notice reaches the client, whose next listing then lifts it
      await listChanged();
      return out;
    }
    if (!m || typeof m !== 'object' || !m.result || typeof m.result !== 'object') return m;
    if (state.requestId === undefined || String(m.id) !== String(state.requestId) || state.claimed) return undefined;
    // set before the first await: a batch's messages are rewritten concurrently
    state.claimed = true;
    // a list that is not a list cannot be reviewed: a lenient client might still read tools from it
    if (!Array.isArray(m.result.tools)) throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered tools/list without a tools array`);
    const tools = (m.result.tools as unknown[]).filter(isToolDefinition) as ToolDefinition[];
    // a page is reviewed with the pages before it in the same listing: a name they listed is a duplicate
    const page = await d.listings.page(Listings.keyOf(server.name, sid, agent.agent_id), server.name, msg.params?.cursor, tools.map((t) => t.name), m.result.nextCursor, sentAt);
    if (!page.ok && page.reason === 'too_many') throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} listed ${page.detail}`);
    // what the MCP spec has a server answer for a cursor it does not know (-32602 invalid params)
    if (!page.ok) return { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: `proofgate: ${page.detail}` } };
    const review = await d.pins.review(server.name, tools, page.earlier).catch((err) => {
      if (err instanceof UnhashableDefinition) throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} listed a tool definition that cannot be hashed: ${err.message}`);
      throw err;
    });
    if (page.complete) {
      await d.pins.clearDuplicates(server.name, page.complete.startedAt, page.complete.listedOnce);
      await d.relist.listed(server.name, page.complete.startedAt);
    }
    for (const w of review.withheld) d.metrics.withheld.inc({ server: server.name, status: w.status });
    if (review.events.length) await d.onPinEvents(ctx, review.events);
    const listed = admitListed(await d.policy.of(server.name), server.name, review.visible, review.pinned);
    if (listed.refused) d.metrics.withheld.inc({ server: server.name, status: 'policy' }, listed.refused);
    return { ...m, result: { ...m.result, tools: listed.visible } };
  };

  return relayAnswer(
    {
      server: server.name,
      requestId: isRequest ? (msg.id as string | number) : undefined,
      rewrite,
      checkDepth: (text) => checkDepth(d, server, text),
      // a tools/list page is reviewed here (its store work cannot move); any other large answer is
      // parsed, reviewed and re-serialised in the pool, and the state it leaves comes back with it
      review: (text, mode) => {
        if (msg.method === 'tools/list' || !d.screening.offloads(text)) return undefined;
        return d.screening.reviewAnswer({ ...state, refused: undefined, text, mode, maxDepth: d.maxJsonDepth, idToken: events.token })?.then(async (r) => {
          if (r.ok) state.claimed = r.claimed;
          if (r.ok && r.refused) refuse({ ...state, refused: r.refused });
          if (r.ok && r.listChanged) await d.relist.mark(server.name);
          return r;
        });
      },
      events,
      // a listing page is reviewed whole on the event loop before its screening is handed to a
      // worker: listings.ts MAX_PAGE_BYTES
      maxBytes: msg.method === 'tools/list' ? MAX_PAGE_BYTES : MAX_ANSWER_BYTES,
      withheld: (detail) => {
        d.metrics.answersWithheld.inc({ server: server.name });
        ctx.log.warn({ event: 'mcp.answer_withheld', server: server.name, method: methodLabel(msg.method), detail }, 'MCP answer withheld: it could not be parsed strictly or reviewed');
      },
    },
    res,
    headers,
    ac,
    timer,
  );
}

export async function relayDelete(d: RelayDeps, ctx: RequestContext, server: McpServer): Promise<Reply> {
  const agent = agentOf(ctx);
  const sid = await checkSession(d, ctx, server.name, agent.agent_id);
  if (sid === undefined) throw new HttpError(McpProblems.sessionRequired, 'DELETE needs the Mcp-Session-Id header of the session to end');
  const { res, ac, timer } = await upstream(d, ctx, server, 'DELETE', sid);
  const reply = await relayDeleteAnswer(
    {
      server: server.name,
      checkDepth: (text) => checkDepth(d, server, text),
      review: (text, mode) => d.screening.reviewAnswer({ requestId: undefined, claimed: false, text, mode, maxDepth: d.maxJsonDepth }),
      withheld: (detail) => ctx.log.warn({ event: 'mcp.answer_withheld', server: server.name, method: 'DELETE', detail }, 'MCP answer withheld'),
    },
    res,
    ac,
    timer,
  );
  if (res.ok) {
    await d.store.collection<SessionRecord>(SESSION_COLLECTION).delete(sessionKey(server.name, sid));
    await d.listings.end(Listings.keyOf(server.name, sid, agent.agent_id));
    await d.streams.end(streamScope(server.name, sid, agent.agent_id));
  }
  return reply;
}

/** the proxy's own answers to a server in flight per relayed stream: past it a dropped request goes unanswered */
const REFUSALS_IN_FLIGHT = 4;

/**
 * Answers the server requests a stream's review dropped (server-messages.ts), in the client's
 * stead and in its session, as a client answers a method it does not know: the server's request
 * fails at once instead of at its timeout. Best effort, bounded; the answer's answer is discarded.
 */
export function refuser(d: RelayDeps, ctx: RequestContext, server: McpServer, sid: string | undefined): (state: ReviewState) => void {
  let inFlight = 0;
  return (state) => {
    for (const r of state.refused?.splice(0) ?? []) {
      if (inFlight >= REFUSALS_IN_FLIGHT) continue;
      inFlight++;
      const body = JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: r.code, message: r.message } });
      void upstream(d, ctx, server, 'POST', sid, body, { accept: 'application/json, text/event-stream' })
        .then(({ res, timer }) => {
          clearTimeout(timer);
          discard(res.body);
        })
        .catch(() => undefined)
        .finally(() => inFlight--);
    }
  };
}
