import { createLocalJWKSet, createRemoteJWKSet, flattenedVerify, type JWTVerifyGetKey } from 'jose';
import { canonicalJson, sha256Hex } from '../../../core/json/canonical.js';
import type { VerdictSigner } from '../signer.js';
import { VERDICT_EXTENSION } from './answer-review.js';
import { projectCardV1 } from './card-v1.js';
import type { PeerConfig } from './config.js';
import { restEndpoint } from './rest-peer.js';
import { UpstreamError, type Upstreams } from './upstream.js';

/**
 * Peer AgentCards (A2A v1.0 §8.4): fetched from the peer, verified, cached, and served with every
 * interface pointing at the sidecar. A signed card is accepted only when every one of its
 * signatures — detached JWS over the RFC 8785 form of the card without `signatures`, empty values
 * left out as A2A prescribes — verifies against the peer's JWKS; a card that fails is refused and
 * never cached (a cached one is dropped). The served card is re-signed with the gateway's own key
 * (its JWKS is /.well-known/jwks.json), because rewriting the URLs voids the peer's signatures; who
 * signed the original is kept in the provenance extension of the served card.
 *
 * Cards are fetched with `A2A-Version: 1.0`, so a peer that serves both versions answers its 1.0
 * card. A signature may be over the card as served (RFC 8785 of everything but `signatures`) or over
 * its A2A 1.0 reading (card-v1.ts, what the official SDK signs and verifies): in the second case
 * nothing outside the 1.0 members is covered by it, so the card is taken as that reading only (a
 * v0.3 `url` beside it is not believed).
 */
export class CardRefused extends Error {}

export type Binding = 'JSONRPC' | 'HTTP+JSON';

/** the served card's extension that says who signed the card this one was made from */
export const PROVENANCE_EXTENSION = 'https://proofgate.dev/a2a/extensions/card-provenance/v1';

/** one verified signature of the peer's card: its protected header's identifying members */
export interface UpstreamSigner {
  alg: string;
  kid?: string;
  jku?: string;
}

/** algorithms a card signature may use: asymmetric only, so `none` and HS* are refused */
const CARD_ALGS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];

/** A2A's canonical card: drop `signatures`, then every empty string, null, empty list and empty object */
export function cardSigningBytes(card: Record<string, unknown>): Buffer {
  const { signatures: _omit, ...rest } = card;
  return Buffer.from(canonicalJson(clean(rest) ?? {}), 'utf8');
}

function clean(v: unknown): unknown {
  if (v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const out = v.map(clean).filter((x) => x !== undefined);
    return out.length ? out : undefined;
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const c = clean(x);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v;
}

interface Cached {
  card: Record<string, unknown>;
  /** the peer's signatures that verified (empty for an unsigned card) */
  signers: UpstreamSigner[];
  /** SHA-256 of the signed form of the peer's card, so a holder of the original can match it */
  upstreamSha256: string;
  endpoint: URL;
  /** how the endpoint is spoken to: JSON-RPC whenever the peer offers it, else A2A 1.0 HTTP+JSON (rest-peer.ts) */
  binding: Binding;
  /**
   * the endpoint is the card's word, not the operator's: on another origin than the configured card
   * URL, so it is sent through the egress check (a2a.proxy.egress_allow) at every connection
   */
  learned: boolean;
  expires: number;
}

export class PeerCards {
  private readonly cache = new Map<string, Cached>();
  private readonly remoteJwks = new Map<string, JWTVerifyGetKey>();

  constructor(
    private readonly o: { upstreams: Upstreams; signer: VerdictSigner; ttlMs: number; clock?: () => number },
  ) {}

  private now(): number {
    return (this.o.clock ?? Date.now)();
  }

  /** the verified upstream card and the endpoint it names (JSON-RPC preferred); throws CardRefused or UpstreamError */
  async get(peer: PeerConfig, signal?: AbortSignal): Promise<Cached> {
    const hit = this.cache.get(peer.id);
    if (hit && hit.expires > this.now()) return hit;
    this.cache.delete(peer.id);
    const r = await this.o.upstreams.json(peer.cardUrl, signal, undefined, { 'a2a-version': '1.0' });
    if (r.status !== 200 || !r.value || typeof r.value !== 'object' || Array.isArray(r.value)) throw new CardRefused(`the peer answered ${r.status} without a card`);
    const { card, signers, bytes } = await this.verify(peer, r.value as Record<string, unknown>);
    const rpc = peer.endpoint ?? jsonRpcEndpoint(card);
    const endpoint = rpc ?? restEndpoint(card);
    if (!endpoint) throw new CardRefused('the card names no JSON-RPC interface and no HTTP+JSON interface of A2A 1.0');
    const learned = peer.endpoint === null && endpoint.origin !== peer.cardUrl.origin;
    const binding: Binding = rpc ? 'JSONRPC' : 'HTTP+JSON';
    const entry = { card, signers, upstreamSha256: sha256Hex(bytes), endpoint, binding, learned, expires: this.now() + this.o.ttlMs };
    if (this.o.ttlMs > 0) this.cache.set(peer.id, entry);
    return entry;
  }

  /**
   * The card as far as its signatures cover it, and who signed it. Each signature must verify over
   * one of the two forms; when any verifies only over the 1.0 reading, the card is that reading.
   */
  async verify(peer: PeerConfig, served: Record<string, unknown>): Promise<{ card: Record<string, unknown>; signers: UpstreamSigner[]; bytes: Buffer }> {
    const sigs = served.signatures;
    if (sigs === undefined || (Array.isArray(sigs) && sigs.length === 0)) {
      if (peer.requireSignedCard) throw new CardRefused('the card is not signed and this peer requires a signed card');
      return { card: served, signers: [], bytes: cardSigningBytes(served) };
    }
    if (!Array.isArray(sigs)) throw new CardRefused('signatures is not a list');
    const keys = this.keysFor(peer);
    if (!keys) throw new CardRefused('the card is signed but no JWKS is configured for this peer (jwks_url)');
    const asServed = cardSigningBytes(served);
    const v1 = projectCardV1(served);
    const asV1 = cardSigningBytes(v1);
    const signers: UpstreamSigner[] = [];
    let onlyV1 = false;
    for (const s of sigs as Array<Record<string, unknown>>) {
      const jws = { protected: String(s?.protected ?? ''), signature: String(s?.signature ?? ''), ...(s?.header && typeof s.header === 'object' ? { header: s.header as Record<string, unknown> } : {}) };
      let header: Record<string, unknown> | undefined;
      let code = 'invalid';
      for (const [bytes, isV1] of [[asServed, false], [asV1, true]] as const) {
        try {
          header = (await flattenedVerify({ ...jws, payload: bytes.toString('base64url') }, keys as never, { algorithms: CARD_ALGS })).protectedHeader as Record<string, unknown>;
          onlyV1 ||= isV1;
          break;
        } catch (err) {
          code = (err as { code?: string }).code ?? 'invalid';
        }
      }
      if (!header) throw new CardRefused(`a card signature does not verify (${code})`);
      signers.push({ alg: String(header.alg), ...(typeof header.kid === 'string' ? { kid: header.kid } : {}), ...(typeof header.jku === 'string' ? { jku: header.jku } : {}) });
    }
    return onlyV1 ? { card: { ...v1, signatures: sigs }, signers, bytes: asV1 } : { card: served, signers, bytes: asServed };
  }

  private keysFor(peer: PeerConfig): JWTVerifyGetKey | null {
    if (!peer.jwksUrl) return null;
    const k = peer.jwksUrl.href;
    let set = this.remoteJwks.get(k);
    if (!set) this.remoteJwks.set(k, (set = createRemoteJWKSet(peer.jwksUrl, { timeoutDuration: 5000, cooldownDuration: 0 })));
    return set;
  }

  /**
   * The card as the client sees it: its A2A 1.0 reading only (card-v1.ts), every JSON-RPC interface
   * at `proxyUrl`, other transports dropped, the verdict and provenance extensions declared, and
   * re-signed over exactly what an A2A 1.0 verifier rebuilds from it.
   */
  rewrite(entry: Pick<Cached, 'card' | 'signers' | 'upstreamSha256'>, proxyUrl: string, jwksUrl: string, cardUrl: string, verdictInAnswers = true, restUrl: string | null = null): Record<string, unknown> {
    const { signatures: _drop, ...out } = projectCardV1(entry.card);
    const interfaces = Array.isArray(out.supportedInterfaces) ? (out.supportedInterfaces as Array<Record<string, unknown>>) : [];
    const rpc = interfaces.filter((i) => i.protocolBinding === 'JSONRPC').map((i) => ({ ...i, url: proxyUrl }));
    out.supportedInterfaces = rpc.length ? rpc : [{ url: proxyUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
    // the proxy's own HTTP+JSON binding (rest.ts), whatever the peer speaks: it reaches the peer as JSON-RPC
    if (restUrl) (out.supportedInterfaces as unknown[]).push({ url: restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
    const caps = out.capabilities && typeof out.capabilities === 'object' ? { ...(out.capabilities as Record<string, unknown>) } : {};
    // only this hop may declare its own extensions: a peer's entries under these URIs are dropped
    const theirs = (Array.isArray(caps.extensions) ? (caps.extensions as Array<Record<string, unknown>>) : []).filter((e) => e.uri !== VERDICT_EXTENSION && e.uri !== PROVENANCE_EXTENSION);
    caps.extensions = [
      ...theirs,
      ...(verdictInAnswers ? [{ uri: VERDICT_EXTENSION, description: "proofgate's verdict on the request, in the metadata of every message, task and update this hop relays", required: false }] : []),
      {
        uri: PROVENANCE_EXTENSION,
        description: 'the peer card this card was made from, and who signed it (verified by proofgate before re-signing)',
        required: false,
        params: { card_url: cardUrl, card_sha256: entry.upstreamSha256, signed: entry.signers.length > 0, signers: entry.signers },
      },
    ];
    out.capabilities = caps;
    const sig = this.o.signer.signDetached({ typ: 'JOSE', jku: jwksUrl }, cardSigningBytes(projectCardV1(out)));
    return { ...out, signatures: [sig] };
  }

  forget(peerId: string): void {
    this.cache.delete(peerId);
  }
}

/**
 * The first JSON-RPC interface of a v1.0 card, or a v0.3 card's: its `url` when JSON-RPC is its
 * preferred transport, else a JSON-RPC entry of `additionalInterfaces` (a peer that prefers
 * HTTP+JSON but also speaks JSON-RPC is reached over JSON-RPC, whose v0.3 shapes this hop relays).
 */
export function jsonRpcEndpoint(card: Record<string, unknown>): URL | null {
  const candidates: unknown[] = [];
  if (Array.isArray(card.supportedInterfaces)) {
    for (const i of card.supportedInterfaces as Array<Record<string, unknown>>) if (i?.protocolBinding === 'JSONRPC') candidates.push(i.url);
  }
  if (typeof card.url === 'string' && (card.preferredTransport === undefined || card.preferredTransport === 'JSONRPC')) candidates.push(card.url);
  if (Array.isArray(card.additionalInterfaces)) {
    for (const i of card.additionalInterfaces as Array<Record<string, unknown>>) if (i?.transport === 'JSONRPC') candidates.push(i.url);
  }
  for (const c of candidates) {
    try {
      const u = new URL(String(c));
      if (u.protocol === 'http:' || u.protocol === 'https:') return u;
    } catch {
      // next candidate
    }
  }
  return null;
}

export { UpstreamError };
export const localJwks = createLocalJWKSet;
