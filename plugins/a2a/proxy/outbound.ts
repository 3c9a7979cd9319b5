import { performance } from 'node:perf_hooks';
import type { Reply, RequestContext } from '../../../core/types.js';
import type { A2AGateway } from '../gateway.js';
import type { VerdictStatus } from '../message.js';
import { CardRefused, type PeerCards } from './cards.js';
import type { PeerConfig } from './config.js';
import { decide, senderOf, UnverifiablePayload, type Decided } from './decide.js';
import { parseRpc, rpcError, RpcCodes, type RpcRequest } from './jsonrpc.js';
import { mapMessage, namedSender } from './mapping.js';
import type { ProxyMetrics } from './metrics.js';
import { UpstreamError, type Upstreams } from './upstream.js';

/**
 * POST /a2a/peers/{receiver}: the local agent speaks A2A JSON-RPC to the sidecar as if it were the
 * peer. Messages (send, stream) are verified first; only a message whose every verdict the policy
 * forwards goes out, unchanged, with `X-Proofgate-Verdict`. Task reads and cancels carry no content
 * and pass after authentication. Every refusal is a JSON-RPC error with the verdict in `error.data`.
 */
export const VERDICT_HEADER = 'x-proofgate-verdict';

export interface OutboundDeps {
  gateway: A2AGateway;
  peers: ReadonlyMap<string, PeerConfig>;
  upstreams: Upstreams;
  cards: PeerCards;
  metrics: ProxyMetrics;
  forwardStatuses: ReadonlySet<VerdictStatus>;
}

/** request headers passed to the peer: the protocol's own and the peer's credentials, never ours */
const PASSED = ['a2a-version', 'a2a-extensions', 'authorization', 'accept'];

export function forwardHeaders(ctx: RequestContext, verdictHeader: string): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json' };
  for (const h of PASSED) {
    const v = ctx.headers[h];
    if (typeof v === 'string') out[h] = v;
  }
  if (verdictHeader) out[VERDICT_HEADER] = verdictHeader;
  return out;
}

export function refusal(req: RpcRequest, d: Decided): Reply {
  const code = d.decision === 'block' ? RpcCodes.blocked : RpcCodes.notForwarded;
  const message = d.decision === 'block' ? 'Message blocked by proofgate' : `Message not forwarded: verdict ${d.deciding.status}`;
  return rpcError(req.id, code, message, { verdict: d.deciding, verdicts: d.verdicts });
}

/** The endpoint of a peer: configured, or read from its (verified) card. */
async function endpointOf(d: OutboundDeps, peer: PeerConfig, signal: AbortSignal): Promise<URL> {
  return peer.endpoint ?? (await d.cards.get(peer, signal)).endpoint;
}

export async function relay(
  d: Pick<OutboundDeps, 'upstreams' | 'metrics'>,
  peerId: string,
  endpoint: URL,
  req: RpcRequest,
  body: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
  extra: Record<string, unknown> = {},
): Promise<Reply> {
  const started = performance.now();
  try {
    const r = await d.upstreams.request('POST', endpoint, headers, body, signal);
    d.metrics.upstream(peerId, (performance.now() - started) / 1000);
    const out: Record<string, string> = { ...r.headers };
    if (headers[VERDICT_HEADER]) out[VERDICT_HEADER] = headers[VERDICT_HEADER];
    return { status: r.status, headers: out, body: r.body };
  } catch (err) {
    const kind = err instanceof UpstreamError ? err.kind : 'failed';
    d.metrics.error(peerId, kind);
    return rpcError(req.id, RpcCodes.peerUnavailable, `Peer unavailable (${kind}); the message was not delivered`, { peer: peerId, reason: kind, ...extra });
  }
}

export async function handleOutbound(d: OutboundDeps, ctx: RequestContext): Promise<Reply> {
  const receiver = ctx.params.receiver;
  const raw = ctx.rawBody ?? Buffer.alloc(0);
  const parsed = parseRpc(ctx.body);
  if (!parsed.ok) return parsed.reply;
  const req = parsed.req;
  const peer = d.peers.get(receiver);
  d.metrics.request(receiver, req.kind);
  if (!peer) return rpcError(req.id, RpcCodes.unknownPeer, 'Unknown peer: no a2a.peers entry for this receiver');

  let decided: Decided | null = null;
  if (req.kind === 'send' || req.kind === 'stream') {
    const mapped = mapMessage(req.params.message, ctx.rawBody);
    if (!mapped.ok) return rpcError(req.id, RpcCodes.invalidParams, `Invalid params: ${mapped.reason}`);
    const named = namedSender(req.params.message, req.params);
    if (!named.ok) return rpcError(req.id, RpcCodes.invalidParams, `Invalid params: ${named.reason}`);
    const sender = senderOf(ctx.principal, named.id);
    if (!sender) return rpcError(req.id, RpcCodes.senderUnknown, 'Sender unknown: use an agent token, a key bound to one sender, or name it in metadata.proofgate.sender_agent_id');
    try {
      decided = await decide(d.gateway, d.forwardStatuses, { sender, receiver, items: mapped.items, caller: { principal: ctx.principal, raw: null }, signal: ctx.signal, log: ctx.log });
    } catch (err) {
      if (err instanceof UnverifiablePayload) return rpcError(req.id, RpcCodes.invalidParams, 'Invalid params: a payload holds a number outside the range RFC 8785 can represent');
      throw err;
    }
    d.metrics.decision(receiver, decided.decision);
    if (decided.decision !== 'forward') {
      ctx.log.info({ peer: receiver, method: req.method, decision: decided.decision, trace_id: decided.deciding.audit_trace_id }, 'a2a.proxy');
      return refusal(req, decided);
    }
  }

  let endpoint: URL;
  try {
    endpoint = await endpointOf(d, peer, ctx.signal);
  } catch (err) {
    const reason = err instanceof CardRefused ? 'card_refused' : err instanceof UpstreamError ? err.kind : 'failed';
    d.metrics.error(receiver, reason);
    return rpcError(req.id, RpcCodes.peerUnavailable, `Peer unavailable (${reason}); the message was not delivered`, { peer: receiver, reason, ...(decided ? { verdict: decided.deciding } : {}) });
  }
  const reply = await relay(d, receiver, endpoint, req, raw, forwardHeaders(ctx, decided?.header ?? ''), ctx.signal, decided ? { verdict: decided.deciding } : {});
  ctx.log.info({ peer: receiver, method: req.method, decision: 'forward', status: reply.status, trace_ids: decided?.verdicts.map((v) => v.audit_trace_id) }, 'a2a.proxy');
  return reply;
}
