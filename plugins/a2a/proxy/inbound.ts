import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { sha256Ref } from '../../../core/json/canonical.js';
import { HttpError, Problems } from '../../../core/errors.js';
import type { Reply, RequestContext } from '../../../core/types.js';
import type { A2AGateway } from '../gateway.js';
import type { VerdictStatus } from '../message.js';
import type { A2AClaims } from '../signer.js';
import { JWT_TYP } from '../signer.js';
import type { SenderAuthMethod } from '../sender-auth.js';
import type { TrustedIssuer } from './config.js';
import { parseRpc, repeatedKeyReply, rpcError, RpcCodes } from './jsonrpc.js';
import type { VerificationItem } from './mapping.js';
import { messageOf, verifyMessage, type Voucher } from './verify-message.js';
import type { ProxyMetrics } from './metrics.js';
import { forwardHeaders, refusal, relay, VERDICT_HEADER } from './outbound.js';
import type { SeenVerdicts } from './replay.js';
import type { Upstreams } from './upstream.js';

/**
 * Inbound guard mode (`a2a.inbound.target`): POST /a2a/inbound stands in front of the local agent.
 * A message is verified the same way as outbound, with the local agent as receiver. A remote sender
 * holds no credential here, so it is authenticated by vouching: an `X-Proofgate-Verdict` from a
 * trusted issuer (another sidecar) whose JWTs verify against that issuer's JWKS, are addressed to the
 * local agent, name one sender, and whose `sub` equals the RFC 8785 hash of each payload this sidecar
 * maps from the message itself. Without such a voucher the sender is unauthenticated and the
 * message is blocked (unless sender_auth is off). Task reads and cancels are not accepted inbound:
 * nothing in them can be vouched for.
 */
export interface InboundDeps {
  gateway: A2AGateway;
  upstreams: Upstreams;
  metrics: ProxyMetrics;
  forwardStatuses: ReadonlySet<VerdictStatus>;
  agentId: string;
  target: URL;
  issuers: readonly TrustedIssuer[];
}

export class Vouchers {
  private readonly keys = new Map<string, JWTVerifyGetKey>();

  constructor(
    private readonly issuers: readonly TrustedIssuer[],
    private readonly seen: SeenVerdicts,
  ) {
    for (const i of issuers) {
      this.keys.set(i.issuer, i.jwks ? createLocalJWKSet(i.jwks as never) : createRemoteJWKSet(i.jwksUrl!, { timeoutDuration: 5000 }));
    }
  }

  /** every item needs one verdict of a trusted issuer whose sub is that item's payload hash */
  async check(header: string, items: readonly VerificationItem[], receiver: string, forwardStatuses: ReadonlySet<VerdictStatus>): Promise<Voucher> {
    const tokens = header.split(',').map((s) => s.trim()).filter(Boolean);
    if (tokens.length === 0 || tokens.length > 16) return { ok: false, reason: 'no verdict' };
    const claims: A2AClaims[] = [];
    for (const token of tokens) {
      const c = await this.verifyOne(token);
      if (!c) return { ok: false, reason: 'a verdict does not verify against a trusted issuer' };
      claims.push(c);
    }
    const senders = new Set(claims.map((c) => c.svc_a2a.sender));
    if (senders.size !== 1) return { ok: false, reason: 'the verdicts name different senders' };
    for (const c of claims) {
      if (c.svc_a2a.receiver !== receiver) return { ok: false, reason: 'a verdict is addressed to another receiver' };
      if (!forwardStatuses.has(c.svc_a2a.verdict)) return { ok: false, reason: `a verdict is ${c.svc_a2a.verdict}` };
      // a verdict on a peer's answer was handed to the agent that asked; it vouches for no message that agent sends on
      if (c.svc_a2a.sender_auth === 'peer') return { ok: false, reason: "a verdict on a peer's answer does not vouch for a message" };
    }
    for (const item of items) {
      const sub = sha256Ref(item.payload);
      if (!claims.some((c) => c.sub === sub)) return { ok: false, reason: 'the payload hash does not match any verdict' };
    }
    // last, so that only a voucher that would be accepted is recorded as used
    let fresh: boolean;
    try {
      fresh = await this.seen.accept(claims.map((c) => ({ iss: c.iss, jti: c.jti, exp: c.exp })));
    } catch {
      // unrecorded, a verdict could vouch again: refuse the message rather than accept it
      throw new HttpError(Problems.unavailable, 'the record of presented verdicts cannot be written; retry later');
    }
    if (!fresh) return { ok: false, reason: 'a verdict was presented before' };
    return { ok: true, sender: [...senders][0], senderAuth: (claims[0].svc_a2a.sender_auth ?? 'none') as SenderAuthMethod };
  }

  private async verifyOne(token: string): Promise<A2AClaims | null> {
    let iss: unknown;
    try {
      iss = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).iss;
    } catch {
      return null;
    }
    const keys = typeof iss === 'string' ? this.keys.get(iss) : undefined;
    if (!keys) return null;
    try {
      const r = await jwtVerify(token, keys, { algorithms: ['ES256'], typ: JWT_TYP, issuer: iss as string, requiredClaims: ['sub', 'exp', 'iat', 'jti'] });
      const c = r.payload as unknown as A2AClaims;
      return c.svc_a2a && typeof c.svc_a2a.sender === 'string' && typeof c.jti === 'string' ? c : null;
    } catch {
      return null;
    }
  }
}

export async function handleInbound(d: InboundDeps, vouchers: Vouchers, ctx: RequestContext): Promise<Reply> {
  const raw = ctx.rawBody ?? Buffer.alloc(0);
  const repeated = repeatedKeyReply(ctx.rawBody);
  if (repeated) return repeated;
  const parsed = parseRpc(ctx.body);
  if (!parsed.ok) return parsed.reply;
  const req = parsed.req;
  d.metrics.request(d.agentId, `inbound_${req.kind}`);
  if (req.kind !== 'send' && req.kind !== 'stream') return rpcError(req.id, RpcCodes.methodNotFound, 'Method not found: inbound mode accepts message/send and message/stream only');
  const header = typeof ctx.headers[VERDICT_HEADER] === 'string' ? (ctx.headers[VERDICT_HEADER] as string) : '';
  const vouch = (items: readonly VerificationItem[]): Promise<Voucher> => (header ? vouchers.check(header, items, d.agentId, d.forwardStatuses) : Promise.resolve({ ok: false, reason: 'no verdict' }));
  const v = await verifyMessage(d, messageOf(req.params, ctx.rawBody), { by: 'voucher', receiver: d.agentId, vouch }, ctx.signal, ctx.log);
  if (!v.ok) return rpcError(req.id, RpcCodes.invalidParams, `Invalid params: ${v.reason}`);
  const { decided, voucher } = v;
  ctx.log.info({ inbound: true, decision: decided.decision, voucher: voucher?.ok ? 'trusted' : voucher?.reason, sender: v.sender }, 'a2a.proxy');
  if (decided.decision !== 'forward') return refusal(req, decided);
  return relay(d, d.agentId, d.target, req, raw, forwardHeaders(ctx, decided.header), ctx.signal, { verdict: decided.deciding });
}
