import type { Readable } from 'node:stream';
import { HttpError } from '../../core/errors.js';
import type { Reply, RequestContext } from '../../core/types.js';
import { MAX_ANSWER_BYTES, mediaType, relayDeleteAnswer, streamReply, type Answer, type JsonRpc } from './answer.js';
import type { McpServer } from './config.js';
import { McpProblems } from './errors.js';
import { unwrapEventId } from './event-ids.js';
import { agentOf, checkDepth, header, orderKey, refuser, sessionOf, upstream, type RelayDeps } from './proxy.js';
import { markStreamUp } from './session-order.js';
import { reviewMessage, type ReviewState } from './relay-review.js';
import { newToken, streamScope, type OpenStreams, type StreamRecord } from './streams.js';
import { discard } from './upstream.js';

/**
 * GET /mcp/{server}: the standalone event stream of the Streamable HTTP transport, and the way back
 * into any stream (a POST's answer too) with `Last-Event-ID`. What the server sends on it unasked
 * (tools/list_changed, resources/updated, sampling and elicitation requests, log messages) is
 * reviewed like every other answer (answer.ts: strict JSON, re-serialised) and by its method
 * (server-messages.ts); a response is relayed only on a resumed stream, and only the one to the
 * request the stream was opened for, reviewed as that request's answer was (streams.ts). Bounded:
 * each event (8 MiB), each stream's life (`mcp.stream_max_seconds`, and shutdown), and the streams
 * an agent holds open at once (`mcp.max_streams_per_agent`).
 */
export interface StreamDeps extends RelayDeps {
  openStreams: OpenStreams;
  streamMaxMs: number;
  /** aborted when the sidecar begins to shut down (App.draining) */
  draining: AbortSignal;
}

const RESUMED_LISTING =
  'proofgate withheld the answer: a tools/list result on a resumed stream cannot be reviewed against the pages listed before it; list the tools again';

export async function relayGet(d: StreamDeps, ctx: RequestContext, server: McpServer): Promise<Reply> {
  const agent = agentOf(ctx);
  const session = await sessionOf(d, ctx, server.name, agent.agent_id);
  const sid = session?.sid;
  // the session's POSTs wait until the server has answered this GET, here (stream-order.ts) and,
  // for its first GET, on other replicas (session-order.ts)
  const opened = sid === undefined ? () => undefined : d.opening.begin(orderKey(server.name, sid));
  const streamUp = session ? () => markStreamUp(d.store, session.key, session.rec) : async () => undefined;
  try {
    return await openStream(d, ctx, server, agent, sid, opened, streamUp);
  } finally {
    opened();
  }
}

async function openStream(d: StreamDeps, ctx: RequestContext, server: McpServer, agent: { agent_id: string }, sid: string | undefined, opened: () => void, streamUp: () => Promise<void>): Promise<Reply> {
  const scope = streamScope(server.name, sid, agent.agent_id);
  const last = header(ctx, 'last-event-id');
  let resumed: StreamRecord | undefined;
  let token = newToken();
  let serverLast: string | undefined;
  if (last) {
    // an id proofgate did not hand out on this session cannot say what its events answer
    const w = unwrapEventId(last);
    resumed = w ? await d.streams.get(scope, w.token, server.name, agent.agent_id) : undefined;
    if (!w || !resumed) {
      d.metrics.streams.inc({ server: server.name, outcome: 'unknown_id' });
      throw new HttpError(McpProblems.streamNotFound, "Last-Event-ID names no event stream relayed on this session (never handed out, another session's, ended or expired): open a new stream without it");
    }
    token = w.token;
    serverLast = w.id;
  }
  const release = d.openStreams.take(agent.agent_id);
  if (!release) {
    d.metrics.streams.inc({ server: server.name, outcome: 'too_many' });
    throw new HttpError(McpProblems.tooManyStreams, `this agent holds ${d.openStreams.max} open event streams already (mcp.max_streams_per_agent)`);
  }
  let up;
  try {
    up = await upstream(d, ctx, server, 'GET', sid, undefined, { lastEventId: serverLast });
    // marked before the POSTs held here go: none of the session's requests overtakes it elsewhere
    // either; a store that cannot write it costs other replicas' POSTs their wait, not this stream
    if (up.res.ok) await streamUp().catch((err: unknown) => ctx.log.warn({ err, server: server.name }, 'mcp: the session record could not say its stream is up'));
  } catch (err) {
    release();
    throw err;
  } finally {
    opened();
  }
  const { res, ac, timer } = up;
  const standalone = resumed?.request_id === undefined || resumed.request_id === null;
  const withheld = (detail: string) => {
    d.metrics.answersWithheld.inc({ server: server.name });
    ctx.log.warn({ event: 'mcp.answer_withheld', server: server.name, method: 'GET', detail }, 'MCP event withheld: it could not be parsed strictly or reviewed');
  };
  if (!res.ok || mediaType(res.header('content-type')) !== 'text/event-stream') {
    release();
    d.metrics.streams.inc({ server: server.name, outcome: 'refused' });
    if (res.ok) {
      ac.abort();
      clearTimeout(timer);
      discard(res.body);
      throw new HttpError(McpProblems.upstreamProtocol, `MCP server ${server.name} answered GET with ${mediaType(res.header('content-type')) || 'no content type'}, not an event stream`);
    }
    // 405 (no standalone stream: MCP clients then do without), 404, 409…: the status, with a JSON
    // body only when it carries no result (the same rule as a DELETE's answer)
    const reply = await relayDeleteAnswer({ server: server.name, checkDepth: (text) => checkDepth(d, server, text), withheld }, res, ac, timer);
    const allow = res.header('allow');
    return res.status === 405 && allow ? { ...reply, headers: { ...reply.headers, allow } } : reply;
  }

  // from here the stream's own bounds apply, not the deadline of one request
  clearTimeout(timer);
  d.metrics.streams.inc({ server: server.name, outcome: resumed ? 'resumed' : 'opened' });
  d.metrics.streamsOpen.inc({ server: server.name });
  const ending = new AbortController();
  const end = () => ending.abort();
  const bound = setTimeout(end, d.streamMaxMs);
  bound.unref();
  d.draining.addEventListener('abort', end, { once: true });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(bound);
    d.draining.removeEventListener('abort', end);
    d.metrics.streamsOpen.dec({ server: server.name });
    release();
  };
  // the upstream request ends with the stream, whoever ends it (relayEvents, the client, the bound)
  ac.signal.addEventListener('abort', close, { once: true });
  if (ac.signal.aborted) close();
  if (d.draining.aborted) end();

  const state: ReviewState = {
    requestId: standalone ? undefined : (resumed!.request_id as string | number),
    claimed: false,
    verdict: resumed?.verdict,
    onlyOwnResponses: true,
    withholdResult: resumed?.method === 'tools/list' ? RESUMED_LISTING : undefined,
  };
  const listChanged = async () => {
    if (!state.listChanged) return;
    state.listChanged = false;
    await d.relist.mark(server.name);
  };
  const refuse = refuser(d, ctx, server, sid);
  const answer: Answer = {
    server: server.name,
    requestId: state.requestId,
    rewrite: async (m: JsonRpc) => {
      const out = reviewMessage(m, state);
      refuse(state);
      await listChanged();
      return out;
    },
    checkDepth: (text) => checkDepth(d, server, text),
    withheld,
    maxBytes: MAX_ANSWER_BYTES,
    review: (text, mode) =>
      d.screening.reviewAnswer({ ...state, refused: undefined, text, mode, maxDepth: d.maxJsonDepth, idToken: token })?.then(async (r) => {
        if (r.ok) state.claimed = r.claimed;
        if (r.ok && r.refused) refuse({ ...state, refused: r.refused });
        if (r.ok && r.listChanged) await d.relist.mark(server.name);
        return r;
      }),
    // a resumed stream keeps its record (and token); a new one is recorded before its first id goes out
    events: resumed ? d.streams.resumed(scope, token) : d.streams.lazy(scope, token, { server: server.name, agent_id: agent.agent_id, request_id: null, method: null }),
    dropBadEvents: standalone,
    resumed: !!resumed,
  };
  return streamReply(answer, res.status, untilEnded(res.body, ending.signal), sid === undefined ? {} : { 'mcp-session-id': sid }, ac, timer);
}

/**
 * The server's stream, ended cleanly (as if the server closed it) once `signal` aborts: the client
 * reads a finished stream and comes back with GET and its Last-Event-ID, where a broken one would
 * be an error on its side.
 */
async function* untilEnded(body: Readable, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  const ended = new Promise<IteratorResult<Uint8Array>>((resolve) => {
    if (signal.aborted) resolve({ done: true, value: undefined });
    signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
  });
  try {
    for (;;) {
      const r = await Promise.race([chunks.next(), ended]);
      if (r.done) return;
      yield r.value;
    }
  } finally {
    // ended by the bound, the client or the server: the upstream request goes with it
    body.on('error', () => undefined);
    body.destroy();
  }
}
