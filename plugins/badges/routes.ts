import { createHash } from 'node:crypto';
import { HttpError } from '../../core/errors.js';
import type { App, Reply, RequestContext } from '../../core/types.js';
import { BADGE_LINK_SERVICE } from '../attestation/index.js';
import { BadgeProblems } from './errors.js';
import { renderBadge, STATUS_COLORS, type BadgeSpec } from './render.js';

const S = 'https://proofgate.dev/schemas/badges';
/** Status badges do not change for a given URL: a short public cache is safe. */
export const STATIC_CACHE = 'public, max-age=300';
/** An attestation can be revoked or expire at any moment: caches keep it but must revalidate (ETag → 304). */
export const LIVE_CACHE = 'no-cache';

/** true when If-None-Match names this entity tag (weak comparison, RFC 9110 §13.1.2) or is `*` */
function notModified(ctx: RequestContext, etag: string): boolean {
  const h = ctx.headers['if-none-match'];
  if (typeof h !== 'string') return false;
  return h.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === etag;
  });
}

/**
 * Every badge: SVG with an ETag over its bytes and a Cache-Control, and a 304 without a body when
 * the client already holds it. Badges are public (decisions §5): `<img>` sends no credentials.
 */
async function svg(ctx: RequestContext, spec: BadgeSpec, cacheControl: string, status = 200): Promise<Reply> {
  const body = await renderBadge(spec);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const headers: Record<string, string> = {
    'content-type': 'image/svg+xml',
    'cache-control': cacheControl,
    etag,
    // defence in depth if a browser opens the SVG directly: no scripts, no external loads
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
  };
  if (status === 200 && notModified(ctx, etag)) return { status: 304, headers };
  return { status, headers, body };
}

function knownStatus(s: string): string {
  const up = s.toUpperCase();
  if (!Object.hasOwn(STATUS_COLORS, up)) throw new HttpError(BadgeProblems.invalid, `unknown status; known: ${Object.keys(STATUS_COLORS).join(', ')}`);
  return up;
}

/**
 * A valid attestation of a claim proven false (`2+2=5`, code proven unsafe; decisions §1) is a
 * sound proof that the claim fails: green would read as a pass to anyone glancing at a README, so
 * it shows `claim false` in red, the colour of a failed verification. Only a valid attestation of
 * a claim that holds is green.
 */
export function attestationBadge(status: string, claimHolds: boolean | null): BadgeSpec {
  if (status === 'VALID' && claimHolds !== true) return { label: 'attestation', message: 'claim false', color: STATUS_COLORS.FAILED };
  return { label: 'attestation', message: status.toLowerCase(), color: STATUS_COLORS[status] ?? 'lightgrey' };
}

export function registerRoutes(app: App): void {
  const common = { method: 'GET' as const, auth: 'none' as const };

  app.route({
    ...common,
    path: '/badge/verified',
    produces: 'image/svg+xml',
    schema: { query: `${S}/verified.query.json` },
    handler(ctx) {
      const q = ctx.query as { verified?: boolean; status?: string; label?: string };
      const fromStatus = q.status === undefined ? undefined : knownStatus(q.status) === 'VERIFIED';
      if (fromStatus === undefined && q.verified === undefined) throw new HttpError(BadgeProblems.invalid, 'give `verified` (true/false) or `status`');
      if (fromStatus !== undefined && q.verified !== undefined && fromStatus !== q.verified) throw new HttpError(BadgeProblems.invalid, '`verified` and `status` disagree');
      const ok = fromStatus ?? q.verified === true;
      return svg(ctx, { label: q.label ?? 'proofgate', message: ok ? 'verified' : 'failed', color: ok ? 'brightgreen' : 'red' }, STATIC_CACHE);
    },
  });

  app.route({
    ...common,
    path: '/badge/status/:status',
    produces: 'image/svg+xml',
    schema: { params: `${S}/status.params.json` },
    handler(ctx) {
      const s = knownStatus(ctx.params.status);
      return svg(ctx, { label: 'verification', message: s, color: STATUS_COLORS[s] }, STATIC_CACHE);
    },
  });

  app.route({
    ...common,
    path: '/badge/custom',
    produces: 'image/svg+xml',
    schema: { query: `${S}/custom.query.json` },
    handler(ctx) {
      const q = ctx.query as { label?: string; message: string; color?: string; logo?: 'on' | 'off' };
      return svg(ctx, { label: q.label ?? '', message: q.message, color: q.color ?? 'blue', logo: q.logo === 'on' }, STATIC_CACHE);
    },
  });

  app.route({
    ...common,
    path: '/badge/attestation/:attestation_id',
    produces: 'image/svg+xml',
    schema: { params: `${S}/attestation.params.json`, query: `${S}/attestation.query.json` },
    async handler(ctx) {
      const q = ctx.query as { exp: string; sig: string };
      const links = app.service(BADGE_LINK_SERVICE);
      const out = links ? await links.check(ctx.params.attestation_id, q.exp, q.sig) : ({ ok: false, reason: 'not_configured' } as const);
      if (out.ok) return svg(ctx, attestationBadge(out.status, out.claimHolds), LIVE_CACHE);
      // a bad link is still an image, so the page shows why instead of a broken-image icon
      if (out.reason === 'link_expired') return svg(ctx, { label: 'attestation', message: 'link expired', color: 'lightgrey' }, LIVE_CACHE, 410);
      if (out.reason === 'invalid_signature') return svg(ctx, { label: 'attestation', message: 'invalid link', color: 'lightgrey' }, LIVE_CACHE, 403);
      return svg(ctx, { label: 'attestation', message: 'unavailable', color: 'lightgrey' }, LIVE_CACHE, 503);
    },
  });
}
