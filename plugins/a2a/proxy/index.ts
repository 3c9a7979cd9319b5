import { HttpError } from '../../../core/errors.js';
import type { StrictJson } from '../../../core/json/strict.js';
import { isWildcard } from '../../../core/http/public-url.js';
import type { App, RequestContext } from '../../../core/types.js';
import { A2AProblems, SIGNING_KEY_UNAVAILABLE } from '../errors.js';
import type { A2AGateway } from '../gateway.js';
import type { VerdictStatus } from '../message.js';
import type { VerdictSigner } from '../signer.js';
import { CardRefused, PeerCards } from './cards.js';
import { EGRESS_SETTING, parsePeers, parseTrustedIssuers, type PeerConfig } from './config.js';
import { EgressPolicy } from '../../../core/http/egress.js';
import { handleExtAuthz } from './ext-authz.js';
import { handleInbound, Vouchers } from './inbound.js';
import { ProxyMetrics } from './metrics.js';
import { SeenVerdicts } from './replay.js';
import { handleOutbound } from './outbound.js';
import { registerRest } from './rest.js';
import { UpstreamError, Upstreams } from './upstream.js';
import { TaskOwners } from './tasks.js';
import { a2aSettings } from '../settings.js';

/**
 * The sidecar as an A2A hop (issue 18, docs/a2a-proxy.md): the outbound proxy to configured peers,
 * their AgentCards, the optional inbound guard in front of the local agent, and the Envoy
 * ext_authz service. Every route answers only with the signing key loaded (no verdict, no hop).
 */
export interface ProxyDeps {
  gateway: A2AGateway | null;
  signer: VerdictSigner | null;
  signingTag: string;
  /** strict JSON reading of a large answer, in the worker pool (the a2a engine's parseAnswer) */
  parseLarge?: (text: string, signal: AbortSignal) => Promise<StrictJson>;
}

const CRED = { auth: 'apiKey', authAlso: ['agentToken'], scope: 'verify:read' } as const;
const S = (f: string) => `https://proofgate.dev/schemas/a2a/${f}.json`;
/** the envelope is checked by the kernel; the raw bytes are what is forwarded */
const RPC = { bodyType: 'json', schema: { body: S('jsonrpc-request'), response: S('jsonrpc-response') } } as const;

export function registerProxy(app: App, deps: ProxyDeps): void {
  const c = app.settings(a2aSettings);
  const peers = parsePeers(c.peers);
  const issuers = parseTrustedIssuers(c.inbound.trusted_issuers);
  const inboundTarget = c.inbound.target ? new URL(c.inbound.target) : null;
  if (inboundTarget && !c.inbound.agent_id) throw new Error('a2a.inbound.agent_id (SVC_A2A_INBOUND_AGENT_ID) is required with a2a.inbound.target');
  const forwardStatuses = new Set<VerdictStatus>(c.proxy.forward_statuses);
  const egress = EgressPolicy.parse(c.proxy.egress_allow, EGRESS_SETTING);
  const upstreams = new Upstreams({ timeoutMs: c.proxy.timeout_ms, connectTimeoutMs: c.proxy.connect_timeout_ms, connections: c.proxy.connections, egress });
  app.onClose(() => upstreams.close());
  const metrics = new ProxyMetrics(app.metrics, new Set([...peers.keys(), ...(c.inbound.agent_id ? [c.inbound.agent_id] : [])]));
  const cards = deps.signer ? new PeerCards({ upstreams, signer: deps.signer, ttlMs: c.proxy.card_ttl_seconds * 1000 }) : null;
  const bodyLimit = c.max_payload_size_bytes;
  const owners = new TaskOwners(app.store, c.proxy.task_ttl_seconds);
  if (peers.size > 0) {
    // expired task records are swept once a minute, reading only what expired
    app.every(60_000, () => owners.prune(), { onError: (err) => app.log.error({ err }, 'a2a proxy task record pruning failed') });
  }
  const tags = ['a2a', deps.signingTag];

  const ready = () => {
    if (!deps.gateway || !cards) throw new HttpError(A2AProblems.signingKeyUnavailable, SIGNING_KEY_UNAVAILABLE);
    return { gateway: deps.gateway, cards };
  };
  // the URLs a served card names (its interfaces, its jku) come from configuration only: built from
  // the request's Host, a caller would get a card signed with our key that points at its own host
  const base = (): string => {
    const u = app.publicUrl();
    if (!u) throw new HttpError(A2AProblems.publicUrlUnset, 'the server listens on a wildcard address and server.public_url (SVC_PUBLIC_URL) is not set: no URL to put in a card');
    return u;
  };
  const urls = (peer: PeerConfig) => ({ proxy: `${base()}/a2a/peers/${encodeURIComponent(peer.id)}`, jwks: `${base()}/.well-known/jwks.json` });
  if (!app.config.server.public_url && isWildcard(app.config.server.host) && (peers.size > 0 || inboundTarget)) {
    app.log.warn({ host: app.config.server.host }, 'a2a AgentCard routes answer 503 until server.public_url (SVC_PUBLIC_URL) is set: a wildcard bind names no address to put in a card');
  }

  const outboundDeps = () => ({ ...ready(), peers, upstreams, metrics, forwardStatuses, owners, egress, urls, parseLarge: deps.parseLarge });
  app.route({
    method: 'POST',
    path: '/a2a/peers/:receiver',
    ...CRED,
    tags,
    bodyType: 'json',
    schema: { ...RPC.schema, params: S('peer.params') },
    bodyLimit,
    handler: (ctx) => handleOutbound(outboundDeps(), ctx),
  });
  // the HTTP+JSON binding: the same operations, restated as the JSON-RPC requests above (rest.ts)
  registerRest(app, { ...CRED, tags, bodyLimit }, outboundDeps);

  // the inbound guard relays its target's answers as they come: its card declares no verdict extension
  const serveCard = async (ctx: RequestContext, peer: PeerConfig, url: string, reviewed = true) => {
    const { cards: pc } = ready();
    const jwks = `${base()}/.well-known/jwks.json`;
    try {
      const entry = await pc.get(peer, ctx.signal);
      return { headers: { 'cache-control': 'no-store' }, body: pc.rewrite(entry, url, jwks, peer.cardUrl.href, reviewed, reviewed ? url : null) };
    } catch (err) {
      const reason = err instanceof CardRefused ? 'card_refused' : err instanceof UpstreamError ? err.kind : 'failed';
      metrics.error(peer.id, reason);
      ctx.log.warn({ peer: peer.id, reason, detail: (err as Error).message }, 'a2a peer card refused');
      throw new HttpError(A2AProblems.peerCardUnavailable, err instanceof CardRefused ? `the peer's AgentCard was refused: ${err.message}` : `the peer's AgentCard could not be fetched (${reason})`);
    }
  };

  app.route({
    method: 'GET',
    path: '/a2a/peers/:receiver/.well-known/agent-card.json',
    ...CRED,
    tags,
    schema: { params: S('peer.params'), response: S('agent-card.response') },
    handler: async (ctx) => {
      const peer = peers.get(ctx.params.receiver);
      if (!peer) throw new HttpError(A2AProblems.unknownPeer, 'no a2a.peers entry for this receiver');
      return serveCard(ctx, peer, `${base()}/a2a/peers/${encodeURIComponent(peer.id)}`);
    },
  });

  if (inboundTarget && c.inbound.agent_id) {
    const agentId = c.inbound.agent_id;
    const seen = new SeenVerdicts(app.store);
    const vouchers = new Vouchers(issuers, seen);
    // records outlive their verdict's exp by a minute; a sweep a minute reads only what expired
    app.every(60_000, () => seen.prune(), { onError: (err) => app.log.error({ err }, 'a2a inbound verdict record pruning failed') });
    const local: PeerConfig = { id: agentId, endpoint: inboundTarget, cardUrl: new URL('/.well-known/agent-card.json', inboundTarget.origin), jwksUrl: null, requireSignedCard: false };
    // the caller is another agent with no credential here: the vouching verdict (or the sender
    // authentication of the gateway, which blocks without it) is what authenticates it
    app.route({
      method: 'POST',
      path: '/a2a/inbound',
      auth: 'none',
      tags,
      ...RPC,
      bodyLimit,
      handler: (ctx) => handleInbound({ gateway: ready().gateway, upstreams, metrics, forwardStatuses, agentId, target: inboundTarget, issuers }, vouchers, ctx),
    });
    app.route({
      method: 'GET',
      path: '/.well-known/agent-card.json',
      auth: 'none',
      tags,
      schema: { response: S('agent-card.response') },
      handler: (ctx) => serveCard(ctx, local, `${base()}/a2a/inbound`, false),
    });
  }

  for (const [method, path] of [['POST', '/ext-authz'], ['POST', '/ext-authz/*'], ['GET', '/ext-authz'], ['GET', '/ext-authz/*']] as const) {
    app.route({
      method,
      path,
      ...CRED,
      tags,
      bodyType: method === 'POST' ? 'json' : 'none',
      schema: { ...(method === 'POST' ? { body: S('jsonrpc-request') } : {}), response: S('ext-authz.response') },
      bodyLimit,
      handler: (ctx) => handleExtAuthz({ gateway: ready().gateway, peers, metrics, forwardStatuses, owners }, ctx),
    });
  }
}
