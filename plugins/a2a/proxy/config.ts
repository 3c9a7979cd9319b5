import { isValidAgentId } from '../message.js';
import { TrustConfigError } from '../trust-config.js';

/**
 * The proxy's settings, read once at start-up. Anything malformed throws, so a sidecar never runs
 * with peers or issuers other than the ones written.
 */
export interface PeerConfig {
  /** receiver agent id */
  id: string;
  /** JSON-RPC endpoint; null until read from the AgentCard (peer configured by its card URL) */
  endpoint: URL | null;
  cardUrl: URL;
  jwksUrl: URL | null;
  /** refuse an unsigned card (a signed card is always verified) */
  requireSignedCard: boolean;
}

export interface TrustedIssuer {
  issuer: string;
  jwksUrl: URL | null;
  jwks: { keys: Record<string, unknown>[] } | null;
}

export const CARD_PATH = '/.well-known/agent-card.json';

function httpUrl(text: unknown, where: string): URL {
  let u: URL;
  try {
    u = new URL(String(text));
  } catch {
    throw new TrustConfigError(`${where}: ${JSON.stringify(text)} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TrustConfigError(`${where}: only http and https URLs`);
  if (u.username || u.password) throw new TrustConfigError(`${where}: credentials do not belong in a URL`);
  return u;
}

function jsonValue(value: unknown, where: string): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (t === '') return undefined;
  try {
    return JSON.parse(t);
  } catch {
    throw new TrustConfigError(`${where}: not valid JSON`);
  }
}

/** a URL whose path is the well-known card path names the card; any other URL is the JSON-RPC endpoint */
function peerFrom(id: string, url: URL, jwksUrl: URL | null, requireSignedCard: boolean): PeerConfig {
  const isCard = url.pathname.endsWith(CARD_PATH) || url.pathname.endsWith('/.well-known/agent.json');
  return {
    id,
    endpoint: isCard ? null : url,
    cardUrl: isCard ? url : new URL(CARD_PATH, url.origin),
    jwksUrl,
    requireSignedCard,
  };
}

export function parsePeers(value: unknown): Map<string, PeerConfig> {
  const where = 'a2a.peers (SVC_A2A_PEERS)';
  const obj = jsonValue(value, where) ?? {};
  if (typeof obj !== 'object' || Array.isArray(obj) || obj === null) throw new TrustConfigError(`${where}: must be an object of receiver id -> URL`);
  const out = new Map<string, PeerConfig>();
  for (const [id, entry] of Object.entries(obj)) {
    if (!isValidAgentId(id)) throw new TrustConfigError(`${where}: ${JSON.stringify(id)} is not a valid agent id`);
    const at = `${where}.${id}`;
    if (typeof entry === 'string') {
      out.set(id, peerFrom(id, httpUrl(entry, at), null, false));
      continue;
    }
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new TrustConfigError(`${at}: a URL or {url, jwks_url?, require_signed_card?}`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !['url', 'jwks_url', 'require_signed_card'].includes(k));
    if (unknown.length) throw new TrustConfigError(`${at}: unknown keys ${unknown.join(', ')}`);
    if (e.require_signed_card !== undefined && typeof e.require_signed_card !== 'boolean') throw new TrustConfigError(`${at}.require_signed_card: a boolean`);
    out.set(id, peerFrom(id, httpUrl(e.url, `${at}.url`), e.jwks_url === undefined ? null : httpUrl(e.jwks_url, `${at}.jwks_url`), e.require_signed_card === true));
  }
  return out;
}

export function parseTrustedIssuers(value: unknown): TrustedIssuer[] {
  const where = 'a2a.inbound.trusted_issuers (SVC_A2A_INBOUND_TRUSTED_ISSUERS)';
  const list = jsonValue(value, where) ?? [];
  if (!Array.isArray(list)) throw new TrustConfigError(`${where}: must be an array`);
  return list.map((item, i) => {
    const at = `${where}[${i}]`;
    if (!item || typeof item !== 'object') throw new TrustConfigError(`${at}: {issuer, jwks_url | jwks}`);
    const e = item as Record<string, unknown>;
    if (typeof e.issuer !== 'string' || !/^did:svc:a2a:[A-Za-z0-9._:-]{1,128}$/.test(e.issuer)) throw new TrustConfigError(`${at}.issuer: a did:svc:a2a:<deployment> DID`);
    const jwks = e.jwks as { keys?: unknown } | undefined;
    if (jwks !== undefined && (!jwks || !Array.isArray(jwks.keys))) throw new TrustConfigError(`${at}.jwks: a JWKS {keys: [...]}`);
    if ((e.jwks_url === undefined) === (jwks === undefined)) throw new TrustConfigError(`${at}: exactly one of jwks_url and jwks`);
    return {
      issuer: e.issuer,
      jwksUrl: e.jwks_url === undefined ? null : httpUrl(e.jwks_url, `${at}.jwks_url`),
      jwks: jwks === undefined ? null : (jwks as { keys: Record<string, unknown>[] }),
    };
  });
}

export const EGRESS_SETTING = 'a2a.proxy.egress_allow (SVC_A2A_PROXY_EGRESS_ALLOW)';
