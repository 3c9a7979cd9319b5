import type { App } from '../../core/types.js';
import type { SecurityEvents, SecurityEventType } from '../auth/index.js';
import { ownOrg } from './compliance.js';

const S = 'https://proofgate.dev/schemas/ops';

/** Weights of the threat score: attacks count more than friction (rate limits). Documented in docs/ops.md. */
const WEIGHTS: Record<SecurityEventType, number> = {
  injection_blocked: 10,
  blocked_verification: 1,
  auth_failure: 2,
  rate_limited: 0.1,
  key_rotated: 0,
  key_revoked: 0,
};

export function threatLevel(score: number): 'low' | 'elevated' | 'high' {
  return score >= 100 ? 'high' : score >= 20 ? 'elevated' : 'low';
}

export function registerThreatRoutes(app: App, services: { events(): SecurityEvents }): void {
  app.route({
    method: 'GET',
    path: '/admin/security/threats/:org_id',
    auth: 'apiKey',
    scope: 'admin:all',
    schema: { params: `${S}/org.params.json`, query: `${S}/threats.query.json`, response: `${S}/threats.response.json` },
    async handler(ctx) {
      const org = ownOrg(ctx, ctx.params.org_id);
      const hours = (ctx.query as { window_hours: number }).window_hours;
      const to = new Date();
      const from = new Date(to.getTime() - hours * 3_600_000).toISOString();
      const events = await services.events().list(org, from);
      const totals: Record<SecurityEventType, number> = {
        injection_blocked: 0,
        blocked_verification: 0,
        auth_failure: 0,
        rate_limited: 0,
        key_rotated: 0,
        key_revoked: 0,
      };
      const byKey = new Map<string, number>();
      for (const e of events) {
        totals[e.type] += e.count;
        if (e.key_id && WEIGHTS[e.type] > 0) byKey.set(e.key_id, (byKey.get(e.key_id) ?? 0) + e.count);
      }
      const score = Object.entries(totals).reduce((s, [t, n]) => s + WEIGHTS[t as SecurityEventType] * n, 0);
      const topKeys = [...byKey.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([key_id, n]) => ({ key_id, events: n }));
      const recent = events
        .slice(-20)
        .reverse()
        .map((e) => ({ type: e.type, count: e.count, first_at: e.first_at, last_at: e.last_at, key_id: e.key_id, detail: e.detail }));
      return {
        body: {
          org_id: org,
          window: { from, to: to.toISOString(), hours },
          totals: {
            blocked_verifications: totals.blocked_verification + totals.injection_blocked,
            injection_attempts_blocked: totals.injection_blocked,
            rate_limit_hits: totals.rate_limited,
            auth_failures: totals.auth_failure,
            key_rotations: totals.key_rotated,
            key_revocations: totals.key_revoked,
          },
          threat_score: Math.round(score * 10) / 10,
          threat_level: threatLevel(score),
          top_keys: topKeys,
          recent,
        },
      };
    },
  });
}
