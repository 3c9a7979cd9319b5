import { HttpError } from '../../core/errors.js';
import type { App, Reply } from '../../core/types.js';
import type { AttestationService } from '../attestation/index.js';
import { BadgeProblems } from './errors.js';
import { renderBadge, STATUS_COLORS, type BadgeSpec } from './render.js';

const S = 'https://proofgate.dev/schemas/badges';
/** Status badges do not change for a given URL: a short public cache is safe. */
export const STATIC_CACHE = 'public, max-age=300';
/** An attestation can be revoked or expire at any moment: never cached. */
export const LIVE_CACHE = 'no-store';

function svg(spec: BadgeSpec, cacheControl: string): Reply {
  return {
    headers: {
      'content-type': 'image/svg+xml',
      'cache-control': cacheControl,
      // defence in depth if a browser opens the SVG directly: no scripts, no external loads
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    },
    body: renderBadge(spec),
  };
}

function knownStatus(s: string): string {
  const up = s.toUpperCase();
  if (!Object.hasOwn(STATUS_COLORS, up)) throw new HttpError(BadgeProblems.invalid, `unknown status; known: ${Object.keys(STATUS_COLORS).join(', ')}`);
  return up;
}

export function registerRoutes(app: App): void {
  const common = { method: 'GET' as const, auth: 'apiKey' as const, scope: 'verify:read' as const };

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
      return svg({ label: q.label ?? 'proofgate', message: ok ? 'verified' : 'failed', color: ok ? 'brightgreen' : 'red' }, STATIC_CACHE);
    },
  });

  app.route({
    ...common,
    path: '/badge/status/:status',
    produces: 'image/svg+xml',
    schema: { params: `${S}/status.params.json` },
    handler(ctx) {
      const s = knownStatus(ctx.params.status);
      return svg({ label: 'verification', message: s, color: STATUS_COLORS[s] }, STATIC_CACHE);
    },
  });

  app.route({
    ...common,
    path: '/badge/custom',
    produces: 'image/svg+xml',
    schema: { query: `${S}/custom.query.json` },
    handler(ctx) {
      const q = ctx.query as { label?: string; message: string; color?: string; logo?: 'on' | 'off' };
      return svg({ label: q.label ?? '', message: q.message, color: q.color ?? 'blue', logo: q.logo === 'on' }, STATIC_CACHE);
    },
  });

  app.route({
    ...common,
    path: '/badge/attestation/:attestation_id',
    produces: 'image/svg+xml',
    schema: { params: `${S}/attestation.params.json` },
    async handler(ctx) {
      const service = app.service<AttestationService>('attestation');
      const orgId = ctx.principal?.orgId;
      // another organisation's attestation reads as unknown: existence is not leaked
      const status = service && orgId ? await service.status(ctx.params.attestation_id, orgId) : null;
      const s = status ?? 'UNKNOWN';
      return svg({ label: 'attestation', message: s.toLowerCase(), color: STATUS_COLORS[s] }, LIVE_CACHE);
    },
  });
}
