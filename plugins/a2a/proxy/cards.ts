import { createLocalJWKSet, createRemoteJWKSet, flattenedVerify, type JWTVerifyGetKey } from 'jose';
import { canonicalJson } from '../../../core/canonical.js';
import type { VerdictSigner } from '../signer.js';
import type { PeerConfig } from './config.js';
import { UpstreamError, type Upstreams } from './upstream.js';

/**
 * Peer AgentCards (A2A v1.0 §8.4): fetched from the peer, verified, cached, and served with every
 * interface pointing at the sidecar. A signed card is accepted only when every one of its
 * signatures — detached JWS over the RFC 8785 form of the card without `signatures`, empty values
 * left out as A2A prescribes — verifies against the peer's JWKS; a card that fails is refused and
 * never cached (a cached one is dropped). The served card is re-signed with the gateway's own key
 * (its JWKS is /.well-known/jwks.json), because rewriting the URLs voids the peer's signatures.
 */
export class CardRefused extends Error {}

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
  endpoint: URL;
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

  /** the verified upstream card and the JSON-RPC endpoint it names; throws CardRefused or UpstreamError */
  async get(peer: PeerConfig, signal?: AbortSignal): Promise<Cached> {
    const hit = this.cache.get(peer.id);
    if (hit && hit.expires > this.now()) return hit;
    this.cache.delete(peer.id);
    const r = await this.o.upstreams.json(peer.cardUrl, signal);
    if (r.status !== 200 || !r.value || typeof r.value !== 'object' || Array.isArray(r.value)) throw new CardRefused(`the peer answered ${r.status} without a card`);
    const card = r.value as Record<string, unknown>;
    await this.verify(peer, card);
    const endpoint = peer.endpoint ?? jsonRpcEndpoint(card);
    if (!endpoint) throw new CardRefused('the card names no JSON-RPC interface');
    const entry = { card, endpoint, expires: this.now() + this.o.ttlMs };
    if (this.o.ttlMs > 0) this.cache.set(peer.id, entry);
    return entry;
  }

  private async verify(peer: PeerConfig, card: Record<string, unknown>): Promise<void> {
    const sigs = card.signatures;
    if (sigs === undefined || (Array.isArray(sigs) && sigs.length === 0)) {
      if (peer.requireSignedCard) throw new CardRefused('the card is not signed and this peer requires a signed card');
      return;
    }
    if (!Array.isArray(sigs)) throw new CardRefused('signatures is not a list');
    const keys = this.keysFor(peer);
    if (!keys) throw new CardRefused('the card is signed but no JWKS is configured for this peer (jwks_url)');
    const payload = cardSigningBytes(card).toString('base64url');
    for (const s of sigs as Array<Record<string, unknown>>) {
      try {
        await flattenedVerify(
          { payload, protected: String(s?.protected ?? ''), signature: String(s?.signature ?? ''), ...(s?.header && typeof s.header === 'object' ? { header: s.header as Record<string, unknown> } : {}) },
          keys as never,
          { algorithms: CARD_ALGS },
        );
      } catch (err) {
        throw new CardRefused(`a card signature does not verify (${(err as { code?: string }).code ?? 'invalid'})`);
      }
    }
  }

  private keysFor(peer: PeerConfig): JWTVerifyGetKey | null {
    if (!peer.jwksUrl) return null;
    const k = peer.jwksUrl.href;
    let set = this.remoteJwks.get(k);
    if (!set) this.remoteJwks.set(k, (set = createRemoteJWKSet(peer.jwksUrl, { timeoutDuration: 5000, cooldownDuration: 0 })));
    return set;
  }

  /** the card as the client sees it: every JSON-RPC interface at `proxyUrl`, other transports dropped, re-signed */
  rewrite(card: Record<string, unknown>, proxyUrl: string, jwksUrl: string): Record<string, unknown> {
    const { signatures: _drop, ...out } = structuredClone(card);
    const interfaces = Array.isArray(out.supportedInterfaces) ? (out.supportedInterfaces as Array<Record<string, unknown>>) : [];
    const rpc = interfaces.filter((i) => i && i.protocolBinding === 'JSONRPC').map((i) => ({ ...i, url: proxyUrl }));
    out.supportedInterfaces = rpc.length ? rpc : [{ url: proxyUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
    // A2A v0.3 cards name their main endpoint in `url`
    if (typeof out.url === 'string') {
      out.url = proxyUrl;
      out.preferredTransport = 'JSONRPC';
      if (Array.isArray(out.additionalInterfaces)) {
        out.additionalInterfaces = (out.additionalInterfaces as Array<Record<string, unknown>>).filter((i) => i?.transport === 'JSONRPC').map((i) => ({ ...i, url: proxyUrl }));
      }
    }
    const sig = this.o.signer.signDetached({ typ: 'JOSE', jku: jwksUrl }, cardSigningBytes(out));
    return { ...out, signatures: [sig] };
  }

  forget(peerId: string): void {
    this.cache.delete(peerId);
  }
}

/** the first JSON-RPC interface of a v1.0 card, or a v0.3 card's `url` */
export function jsonRpcEndpoint(card: Record<string, unknown>): URL | null {
  const candidates: unknown[] = [];
  if (Array.isArray(card.supportedInterfaces)) {
    for (const i of card.supportedInterfaces as Array<Record<string, unknown>>) if (i?.protocolBinding === 'JSONRPC') candidates.push(i.url);
  }
  if (typeof card.url === 'string' && (card.preferredTransport === undefined || card.preferredTransport === 'JSONRPC')) candidates.push(card.url);
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
