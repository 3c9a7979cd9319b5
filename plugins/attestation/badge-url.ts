import { createHmac } from 'node:crypto';
import { defineProblem, HttpError } from '../../core/errors.js';
import { safeEqual } from '../../core/json/canonical.js';
import type { Collection } from '../../core/store/store.js';
import type { App } from '../../core/types.js';
import { AttestationProblems } from './errors.js';
import type { AttestationRecord, StoredStatus } from './types.js';
import { recordStatus } from './verify.js';

/**
 * Signed badge URLs (decisions §5). An `<img>` sends no credentials, so the badge of a stored
 * attestation is reached by `GET /badge/attestation/{id}?exp=…&sig=…`, where `sig` is
 * HMAC-SHA256(secrets.badge_url_secret, "proofgate-badge-v1:{id}:{exp}") in base64url. Only
 * `POST /attestation/{id}/badge-url` (API key, own organisation) issues one, so a pasted URL shows
 * one attestation's status until it expires and exposes no key. Without the secret the feature is
 * off: issuing answers 503 and every signed URL is refused.
 */
export const BADGE_LINK_SERVICE = 'attestation.badge-link';

export const DEFAULT_BADGE_TTL_SECONDS = 30 * 24 * 3600;
export const MAX_BADGE_TTL_SECONDS = 365 * 24 * 3600;

export type BadgeLinkOutcome =
  /** `claimHolds`: the attested result's `verified` (false for a claim proven false); null when unknown */
  | { ok: true; status: StoredStatus | 'UNKNOWN'; claimHolds: boolean | null }
  | { ok: false; reason: 'invalid_signature' | 'link_expired' | 'not_configured' };

/** What the badges plugin asks (through `app.service(BADGE_LINK_SERVICE)`): no tenant is involved, the signature is the authority. */
export interface BadgeLinkService {
  check(id: string, exp: string, sig: string): Promise<BadgeLinkOutcome>;
}

const S = 'https://proofgate.dev/schemas/attestation';
const BadgeUrlUnavailable = defineProblem('badge_url_unavailable', 503, 'Signed badge URLs are not configured');
const nowSeconds = () => Math.floor(Date.now() / 1000);
const EXP_RE = /^[0-9]{1,12}$/;

export function badgeSignature(secret: string, id: string, exp: number | string): string {
  return createHmac('sha256', secret).update(`proofgate-badge-v1:${id}:${exp}`).digest('base64url');
}

export function registerBadgeUrl(app: App, records: Collection<AttestationRecord>, accepted: ReadonlyMap<string, string>): void {
  const secret = app.config.secrets.badge_url_secret ?? null;

  const service: BadgeLinkService = {
    async check(id, exp, sig) {
      if (!secret) return { ok: false, reason: 'not_configured' };
      // the signature first: a forged URL learns nothing, not even whether its expiry has passed
      if (!EXP_RE.test(exp) || !safeEqual(badgeSignature(secret, id, exp), sig)) return { ok: false, reason: 'invalid_signature' };
      const now = nowSeconds();
      if (Number(exp) <= now) return { ok: false, reason: 'link_expired' };
      const r = await records.get(id);
      return r ? { ok: true, status: recordStatus(r, now, accepted), claimHolds: r.result?.verified === true } : { ok: true, status: 'UNKNOWN', claimHolds: null };
    },
  };
  app.provide(BADGE_LINK_SERVICE, service);

  app.route({
    method: 'POST',
    path: '/attestation/:id/badge-url',
    auth: 'apiKey',
    scope: 'attestation:read',
    bodyType: 'none',
    schema: { params: `${S}/id.params.json`, query: `${S}/badge-url.query.json`, response: `${S}/badge-url.response.json` },
    async handler(ctx) {
      const r = await records.get(ctx.params.id);
      // another organisation's attestation is indistinguishable from a missing one (decisions §5)
      if (!r || r.org_id === null || r.org_id !== ctx.principal?.orgId) throw new HttpError(AttestationProblems.notFound, 'no such attestation');
      if (!secret) {
        throw new HttpError(BadgeUrlUnavailable, 'signed badge URLs are not configured on this server (secrets.badge_url_secret)', {
          headers: { 'retry-after': '60' },
        });
      }
      const ttl = (ctx.query as { ttl_seconds?: number }).ttl_seconds ?? DEFAULT_BADGE_TTL_SECONDS;
      const exp = nowSeconds() + ttl;
      const path = `/badge/attestation/${encodeURIComponent(r.id)}?exp=${exp}&sig=${badgeSignature(secret, r.id, exp)}`;
      // never the request's Host: a link built from it points wherever the caller said
      const base = app.publicUrl() ?? '';
      return {
        body: { attestation_id: r.id, path, url: base + path, expires_at: exp, expires_at_iso: new Date(exp * 1000).toISOString() },
      };
    },
  });
}
