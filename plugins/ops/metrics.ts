import { HttpError } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import type { Accounts, ApiKeys } from '../auth/index.js';
import { OpsProblems } from './errors.js';
import { orgStats, sinceHours } from './stats.js';

const S = 'https://proofgate.dev/schemas/ops';
const WINDOW_HOURS = 24;

/**
 * Operator metrics. The spec lists metrics under API-key authentication; the key's creating user id
 * must be in SVC_METRICS_OPERATOR_USER_IDS (empty = nobody). Roles and scopes grant nothing here —
 * not even admin:all — so the routes declare scope 'authenticated' and check the user id themselves.
 */
function requireOperator(app: App, ctx: RequestContext): void {
  const ids = app.config.auth.metrics_operator_user_ids;
  const user = ctx.principal?.userId;
  if (!user || ids.length === 0 || !ids.includes(user)) {
    throw new HttpError(OpsProblems.notOperator, 'metrics are restricted to the operators listed in SVC_METRICS_OPERATOR_USER_IDS');
  }
}

export function registerMetricsRoutes(app: App, services: { accounts(): Accounts; keys(): ApiKeys }): void {
  app.route({
    method: 'GET',
    path: '/metrics',
    auth: 'apiKey',
    scope: 'authenticated',
    schema: { response: `${S}/metrics.response.json` },
    async handler(ctx) {
      requireOperator(app, ctx);
      const since = sinceHours(WINDOW_HOURS);
      const orgs = await services.accounts().listOrgs();
      const tenants = [];
      const totals = { entries_total: 0, verified: 0, blocked: 0, unverifiable: 0, admin: 0 };
      for (const o of orgs) {
        const s = await orgStats(app.store, o.id, since);
        totals.entries_total += s.entries_total;
        for (const k of ['verified', 'blocked', 'unverifiable', 'admin'] as const) totals[k] += s.window[k];
        tenants.push({ org_id: o.id, tier: o.tier, entries_total: s.entries_total, last_24h: s.window, window_truncated: s.window_truncated });
      }
      return {
        body: {
          generated_at: new Date().toISOString(),
          window_hours: WINDOW_HOURS,
          process: { uptime_seconds: Math.round(process.uptime()), rss_bytes: process.memoryUsage().rss },
          totals,
          tenants,
        },
      };
    },
  });

  app.route({
    method: 'GET',
    path: '/metrics/prometheus',
    produces: 'text/plain; version=0.0.4',
    auth: 'apiKey',
    scope: 'authenticated',
    async handler(ctx) {
      requireOperator(app, ctx);
      const { contentType, body } = await app.metrics.text();
      return { body, headers: { 'content-type': contentType } };
    },
  });

  app.route({
    method: 'GET',
    path: '/metrics/:org_id',
    auth: 'apiKey',
    scope: 'verify:read',
    schema: { params: `${S}/org.params.json`, response: `${S}/org-metrics.response.json` },
    async handler(ctx) {
      const org = ctx.params.org_id;
      if (org !== ctx.principal!.orgId) throw new HttpError(OpsProblems.otherOrg, 'tenants may only read their own metrics');
      const s = await orgStats(app.store, org, sinceHours(WINDOW_HOURS));
      return {
        body: {
          org_id: org,
          generated_at: new Date().toISOString(),
          window_hours: WINDOW_HOURS,
          entries_total: s.entries_total,
          last_24h: s.window,
          window_truncated: s.window_truncated,
          active_api_keys: await services.keys().countActive(org),
        },
      };
    },
  });
}
