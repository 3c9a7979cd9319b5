import { performance } from 'node:perf_hooks';
import { sha256Hex } from '../../../core/json/canonical.js';
import type { Reply, RequestContext } from '../../../core/types.js';
import type { A2AGateway } from '../gateway.js';
import type { VerdictStatus } from '../message.js';
import { CardRefused, type Binding, type PeerCards } from './cards.js';
import type { PeerConfig } from './config.js';
import { decide, UnverifiablePayload, type Decided } from './decide.js';
import { parseRpc, repeatedKeyReply, rpcError, RpcCodes, type RpcRequest } from './jsonrpc.js';
import { mapMessage } from './mapping.js';
import { messageOf, verifyMessage } from './verify-message.js';
import type { ProxyMetrics } from './metrics.js';
import { UpstreamError, type UpstreamResponse, type Upstreams } from './upstream.js';
import { restCall } from './rest-peer.js';
import type { EgressPolicy } from '../../../core/http/egress.js';
import type { StrictJson } from '../../../core/json/strict.js';
import { reviewAnswer } from './answer.js';
import { Withheld, type OutputVerifier, type VerdictMeta } from './answer-review.js';
import { pushUrlRefusal, pushUrlsOf, type Resolve } from './push-url.js';
import { ownershipRefusal } from './owned.js';
import type { TaskOwner, TaskOwners } from './tasks.js';

/**
 * POST /a2a/peers/{receiver}: the local agent speaks A2A JSON-RPC to the sidecar as if it were the
 * peer. Messages (send, stream) are verified first; only a message whose every verdict the policy
 * forwards goes out, unchanged, with `X-Proofgate-Verdict`. Every other A2A method is relayed for the
 * caller's own tasks only (tasks.ts), push-notification URLs only where the egress policy admits
 * (push-url.ts), and every answer is reviewed before the client sees it (answer.ts). Every refusal
 * is a JSON-RPC error with the verdict in `error.data`. The peer hears the binding its card declares
 * (JSON-RPC when it has it, else HTTP+JSON: rest-peer.ts); the checks are made before, either way.
 */
export const VERDICT_HEADER = 'x-proofgate-verdict';

export interface OutboundDeps {
  gateway: A2AGateway;
  peers: ReadonlyMap<string, PeerConfig>;
  upstreams: Upstreams;
  cards: PeerCards;
  metrics: ProxyMetrics;
  forwardStatuses: ReadonlySet<VerdictStatus>;
  owners: TaskOwners;
  /** where push-notification URLs may point (a2a.proxy.egress_allow) */
  egress: EgressPolicy;
  /** name resolution for push URLs (tests substitute one) */
  resolve?: Resolve;
  /** strict JSON reading of a large answer, off the event loop (absent: read inline) */
  parseLarge?: (text: string, signal: AbortSignal) => Promise<StrictJson>;
  /** the URLs the served cards name: this hop's endpoint for the peer, its JWKS */
  urls: (peer: PeerConfig) => { proxy: string; jwks: string };
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

interface Target {
  endpoint: URL;
  learned: boolean;
  binding: Binding;
}

/** The endpoint of a peer: configured (JSON-RPC), or read from its (verified) card with the binding it declares, and whether the card named it. */
async function endpointOf(d: OutboundDeps, peer: PeerConfig, signal: AbortSignal): Promise<Target> {
  if (peer.endpoint) return { endpoint: peer.endpoint, learned: false, binding: 'JSONRPC' };
  const { endpoint, learned, binding } = await d.cards.get(peer, signal);
  return { endpoint, learned, binding };
}

/** the reviewed request on the peer's binding: as received for JSON-RPC, restated for HTTP+JSON (rest-peer.ts) */
async function callPeer(d: OutboundDeps, target: Target, req: RpcRequest, raw: Buffer, headers: Record<string, string>, signal: AbortSignal): Promise<UpstreamResponse | { refused: Reply }> {
  if (target.binding === 'JSONRPC') return d.upstreams.request('POST', target.endpoint, headers, raw, signal, target.learned);
  const c = restCall(req, raw, target.endpoint);
  if (!c.ok) return { refused: rpcError(req.id, c.code, c.message) };
  // the 1.0 binding is the one spoken: a peer that also serves v0.3 REST reads a request without the header as v0.3
  const h = { ...headers, 'a2a-version': '1.0', accept: c.call.stream ? 'text/event-stream' : 'application/json' };
  return d.upstreams.request(c.call.method, c.call.url, h, c.call.body, signal, target.learned);
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
  learned = false,
): Promise<Reply> {
  const started = performance.now();
  try {
    const r = await d.upstreams.request('POST', endpoint, headers, body, signal, learned);
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

/** A2A's TaskNotFoundError, the same for a task that is not there and one that is someone else's */
const notFound = (req: RpcRequest) => rpcError(req.id, RpcCodes.taskNotFound, 'Task not found');

async function ownedOrRefused(d: OutboundDeps, ctx: RequestContext, req: RpcRequest, receiver: string): Promise<Reply | null> {
  const why = await ownershipRefusal(d.owners, receiver, ctx.principal, req);
  if (why) return 'invalid' in why ? rpcError(req.id, RpcCodes.invalidParams, `Invalid params: ${why.invalid}`) : notFound(req);
  if (req.kind === 'push_set') {
    const urls = pushUrlsOf(req.params);
    if (urls.length === 0) return rpcError(req.id, RpcCodes.invalidParams, 'Invalid params: the push-notification config names no url');
    for (const u of urls) {
      const why = await pushUrlRefusal(u, d.egress, d.resolve);
      if (why) return rpcError(req.id, RpcCodes.pushUrlRefused, `Push-notification URL refused: ${why}`, { peer: receiver, reason: why });
    }
  }
  return null;
}

/**
 * Agent output in an answer is verified as a message from the peer to the caller: its verifiable
 * parts (the same mapping as a request's) each get a verdict, with `sender_auth: peer` (the answer
 * came over the connection configured for that peer). A blocking verdict withholds the answer;
 * anything else is relayed with the output's verdicts beside the request's. Text alone is
 * unverifiable and relayed as such: an answer is not held to the forwarding policy, or no agent
 * could answer in words through the proxy.
 */
function outputVerifier(d: OutboundDeps, ctx: RequestContext, peer: string, owner: TaskOwner | null): OutputVerifier {
  const p = ctx.principal;
  const receiver = owner?.sender ?? p?.agentId ?? (p?.a2aSenders?.length === 1 ? p.a2aSenders[0] : undefined) ?? 'unknown';
  return async (holder) => {
    // by content only: a payload type the peer names in its own metadata (say `general`) would let it choose to go unverified
    const mapped = mapMessage({ parts: holder.parts }, null);
    if (!mapped.ok) throw new Withheld(`agent output that cannot be read one way (${mapped.reason})`);
    const items = mapped.items.filter((i) => i.payloadType !== 'general');
    if (!items.length) return null;
    let out: Decided;
    try {
      out = await decide(d.gateway, d.forwardStatuses, { sender: peer, receiver, items, caller: { principal: p, raw: null, vouched: 'peer' }, signal: ctx.signal, log: ctx.log });
    } catch (err) {
      if (err instanceof UnverifiablePayload) throw new Withheld('agent output holds a number outside the range RFC 8785 can represent');
      throw err;
    }
    d.metrics.decision(peer, `output_${out.decision}`);
    if (out.decision === 'block') throw new Withheld('the agent output was blocked by proofgate', { verdict: out.deciding, verdicts: out.verdicts });
    return { status: out.deciding.status, verdicts: out.verdicts.map((v) => v.attestation_jwt).filter((j): j is string => !!j), audit_trace_ids: out.verdicts.map((v) => v.audit_trace_id) };
  };
}

export async function handleOutbound(d: OutboundDeps, ctx: RequestContext): Promise<Reply> {
  const receiver = ctx.params.receiver;
  const raw = ctx.rawBody ?? Buffer.alloc(0);
  const repeated = repeatedKeyReply(ctx.rawBody);
  if (repeated) return repeated;
  const parsed = parseRpc(ctx.body);
  if (!parsed.ok) return parsed.reply;
  const req = parsed.req;
  const peer = d.peers.get(receiver);
  d.metrics.request(receiver, req.kind);
  if (!peer) return rpcError(req.id, RpcCodes.unknownPeer, 'Unknown peer: no a2a.peers entry for this receiver');
  const refused = await ownedOrRefused(d, ctx, req, receiver);
  if (refused) return refused;

  let decided: Decided | null = null;
  let owner: TaskOwner | null = null;
  if (req.kind === 'send' || req.kind === 'stream') {
    const v = await verifyMessage(d, messageOf(req.params, ctx.rawBody), { by: 'credential', receiver, principal: ctx.principal }, ctx.signal, ctx.log);
    if (!v.ok) return v.refusal === 'invalid' ? rpcError(req.id, RpcCodes.invalidParams, `Invalid params: ${v.reason}`) : rpcError(req.id, RpcCodes.senderUnknown, `Sender unknown: ${v.reason}`);
    decided = v.decided;
    if (decided.decision !== 'forward') {
      ctx.log.info({ peer: receiver, method: req.method, decision: decided.decision, trace_id: decided.deciding.audit_trace_id }, 'a2a.proxy');
      return refusal(req, decided);
    }
    owner = { org: ctx.principal?.orgId ?? '', sender: v.sender };
  }

  let target: Target;
  try {
    target = await endpointOf(d, peer, ctx.signal);
  } catch (err) {
    const reason = err instanceof CardRefused ? 'card_refused' : err instanceof UpstreamError ? err.kind : 'failed';
    d.metrics.error(receiver, reason);
    return rpcError(req.id, RpcCodes.peerUnavailable, `Peer unavailable (${reason}); the message was not delivered`, { peer: receiver, reason, ...(decided ? { verdict: decided.deciding } : {}) });
  }
  const headers = forwardHeaders(ctx, decided?.header ?? '');
  const verdict: VerdictMeta | null = decided
    ? { status: decided.deciding.status, verdicts: decided.verdicts.map((v) => v.attestation_jwt).filter((j): j is string => !!j), audit_trace_ids: decided.verdicts.map((v) => v.audit_trace_id) }
    : null;
  const started = performance.now();
  let reply: Reply;
  try {
    const r = await callPeer(d, target, req, raw, headers, ctx.signal);
    if ('refused' in r) return r.refused;
    d.metrics.upstream(receiver, (performance.now() - started) / 1000);
    reply = await reviewAnswer(r, {
      id: req.id,
      rest: target.binding === 'HTTP+JSON',
      ...(d.parseLarge ? { parseLarge: (text: string) => d.parseLarge!(text, ctx.signal) } : {}),
      headers: headers[VERDICT_HEADER] ? { [VERDICT_HEADER]: headers[VERDICT_HEADER] } : {},
      review: { kind: req.kind, peer: receiver, principal: ctx.principal, owner, owners: d.owners, verdict, seen: new Set(), verifyOutput: outputVerifier(d, ctx, receiver, owner) },
      ...(req.kind === 'extended_card'
        ? {
            card: async (card) => {
              // a card the peer's keys do not vouch for is withheld, as an unverifiable card is refused on the card route
              const checked = await d.cards.verify(peer, card).catch((err: unknown) => {
                throw err instanceof CardRefused ? new Withheld(`the extended card was refused: ${err.message}`) : err;
              });
              const urls = d.urls(peer);
              return d.cards.rewrite({ ...checked, upstreamSha256: sha256Hex(checked.bytes) }, urls.proxy, urls.jwks, `${target.endpoint.href}#${req.method}`, true, urls.proxy);
            },
          }
        : {}),
    });
  } catch (err) {
    const kind = err instanceof CardRefused ? 'card_refused' : err instanceof UpstreamError ? err.kind : 'failed';
    if (!(err instanceof CardRefused) && !(err instanceof UpstreamError)) throw err;
    d.metrics.error(receiver, kind);
    reply = rpcError(req.id, RpcCodes.peerUnavailable, `Peer unavailable (${kind}); the message was not delivered`, { peer: receiver, reason: kind, ...(decided ? { verdict: decided.deciding } : {}) });
  }
  ctx.log.info({ peer: receiver, method: req.method, decision: 'forward', status: reply.status, trace_ids: decided?.verdicts.map((v) => v.audit_trace_id) }, 'a2a.proxy');
  return reply;
}
