import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import { isOperator } from '../auth/index.js';
import type { DecisionLog } from './decisions.js';
import type { PeerConfig } from './proxy/config.js';
import type { Allowlist } from './trust-config.js';
import { a2aSettings } from './settings.js';

const S = (f: string) => `https://proofgate.dev/schemas/a2a/${f}.json`;

export interface ReadRouteDeps {
  decisions: DecisionLog;
  peers: ReadonlyMap<string, PeerConfig>;
  allowlist: Allowlist;
  blocklist: ReadonlySet<string>;
  /** `sender>receiver` as configured */
  blockedPairs: readonly string[];
}

/**
 * Read-only views of the A2A gateway for the console and any client (issue 41): peers, recent
 * decisions, the trust lists. A user's JWT or an API key with verify:read (the scope that can send
 * A2A traffic). An operator (SVC_OPERATOR_USER_IDS) sees the deployment's whole configuration and
 * every organisation's decisions; anyone else sees their organisation's decisions, the trust entries
 * the operator assigned to it, the block entries that name one of those ids, and the peers' ids
 * without their URLs (internal addresses are the operator's business, the ids are what a client
 * addresses).
 */
const CRED = { auth: 'jwt', authAlso: ['apiKey'], scope: 'authenticated' } as const;

function caller(app: App, ctx: RequestContext): { orgId: string; operator: boolean } {
  const p = ctx.principal!;
  // a key narrower than verify:read (attestation:read only) reads no A2A traffic
  if (p.kind === 'apiKey' && !p.scopes.includes('verify:read') && !p.scopes.includes('admin:all')) {
    throw new HttpError(Problems.forbidden, 'reading A2A peers, decisions and trust lists with an API key needs the verify:read scope');
  }
  return { orgId: p.orgId, operator: isOperator(app, ctx) };
}

/** the agent ids the operator assigned to `orgId` in a2a.trusted_agents */
function ownedIds(allowlist: Allowlist, orgId: string): Set<string> {
  const out = new Set<string>();
  for (const [id, entries] of allowlist) if (entries.some((e) => e.orgId === orgId)) out.add(id);
  return out;
}

function splitPair(p: string): { sender: string; receiver: string } {
  const i = p.indexOf('>');
  return { sender: p.slice(0, i).trim(), receiver: p.slice(i + 1).trim() };
}

export function registerReadRoutes(app: App, d: ReadRouteDeps): void {
  app.route({
    method: 'GET',
    path: '/a2a/peers',
    ...CRED,
    tags: ['a2a'],
    schema: { response: S('peers.response') },
    handler(ctx) {
      const { operator } = caller(app, ctx);
      const peers = [...d.peers.values()].map((p) => ({
        id: p.id,
        card_path: `/a2a/peers/${encodeURIComponent(p.id)}/.well-known/agent-card.json`,
        require_signed_card: p.requireSignedCard,
        jwks_configured: p.jwksUrl !== null,
        card_url: operator ? p.cardUrl.href : null,
        endpoint: operator ? (p.endpoint?.href ?? null) : null,
        jwks_url: operator ? (p.jwksUrl?.href ?? null) : null,
      }));
      return { body: { operator, peers } };
    },
  });

  app.route({
    method: 'GET',
    path: '/a2a/decisions',
    ...CRED,
    tags: ['a2a'],
    schema: { query: S('decisions.query'), response: S('decisions.response') },
    handler(ctx) {
      const { orgId, operator } = caller(app, ctx);
      const q = ctx.query as { limit: number; sender?: string; receiver?: string };
      const decisions = d.decisions.recent(operator ? null : orgId, q.limit, { sender: q.sender, receiver: q.receiver });
      return { body: { operator, decisions } };
    },
  });

  app.route({
    method: 'GET',
    path: '/a2a/trust',
    ...CRED,
    tags: ['a2a'],
    schema: { response: S('trust.response') },
    handler(ctx) {
      const { orgId, operator } = caller(app, ctx);
      const c = app.settings(a2aSettings);
      const mine = ownedIds(d.allowlist, orgId);
      const trusted = [...d.allowlist.values()]
        .flat()
        .filter((e) => operator || e.orgId === orgId)
        .map((e) => ({
          agent_id: e.agentId,
          org_id: e.orgId,
          allowed_receivers: e.receivers ? [...e.receivers] : null,
          allowed_payload_types: e.payloadTypes ? [...e.payloadTypes] : null,
          valid_until: e.validUntil === null ? null : new Date(e.validUntil).toISOString(),
          has_jwk: e.jwk !== null,
        }));
      const blocklist = [...d.blocklist].filter((id) => operator || mine.has(id));
      const blockedPairs = d.blockedPairs.map(splitPair).filter((p) => operator || mine.has(p.sender) || mine.has(p.receiver));
      return { body: { operator, default_allow: c.default_allow, max_requests_per_minute: c.max_requests_per_minute, trusted_agents: trusted, blocklist, blocked_pairs: blockedPairs } };
    },
  });
}
