import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeEqual } from '../../core/json/canonical.js';
import { HttpError } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import type { Accounts, ApiKeys } from '../auth/index.js';
import { OpsProblems } from './errors.js';
import { auditReader, orgStats, sinceHours } from './stats.js';

const S = 'https://proofgate.dev/schemas/ops';
const WINDOW_HOURS = 24;

/**
 * Operator metrics. The spec lists metrics under API-key authentication; the key's creating user id
 * must be in SVC_METRICS_OPERATOR_USER_IDS or SVC_OPERATOR_USER_IDS (both empty = nobody): the
 * metrics operators are the platform operators plus whoever is only allowed to read metrics. Roles
 * and scopes grant nothing here — not even admin:all — so the routes check the user id themselves.
 */
function requireOperator(app: App, ctx: RequestContext): void {
  const ids = [...app.config.auth.metrics_operator_user_ids, ...app.config.auth.operator_user_ids];
  const user = ctx.principal?.userId;
  if (!user || ids.length === 0 || !ids.includes(user)) {
    throw new HttpError(OpsProblems.notOperator, 'metrics are restricted to the operators listed in SVC_OPERATOR_USER_IDS or SVC_METRICS_OPERATOR_USER_IDS');
  }
}

/** `Authorization: Bearer <SVC_METRICS_TOKEN>`, compared in constant time; false when no token is configured. */
export function hasMetricsToken(app: App, header: string | undefined): boolean {
  const token = app.config.metrics.token;
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return !!token && !!m && safeEqual(m[1], token);
}

/**
 * SVC_METRICS_PORT: a second listener that serves only the Prometheus text at GET /metrics, without
 * authentication unless SVC_METRICS_TOKEN is set — the scrape convention. It must be bound to an
 * address only the pod network reaches (docs/ops.md); it exposes no tenant data (no tenant labels).
 */
export async function startMetricsListener(app: App): Promise<Server | null> {
  const { port, host } = app.config.metrics;
  if (port === null) return null;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8', extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== '/metrics' && path !== '/metrics/prometheus') return send(404, 'not found\n');
    // RFC 9110: a 405 names the methods the resource has, as the main listener's router does
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n', undefined, { allow: 'GET, HEAD' });
    if (app.config.metrics.token && !hasMetricsToken(app, req.headers.authorization)) return send(401, 'bearer token required\n');
    app.metrics.text(req.headers.accept).then(
      ({ contentType, body }) => send(200, body, contentType, { vary: 'Accept' }),
      (err) => {
        app.log.error({ err }, 'metrics rendering failed');
        send(500, 'metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host ?? app.config.server.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  app.log.info({ host: a.address, port: a.port }, 'metrics listener started (unauthenticated unless SVC_METRICS_TOKEN is set)');
  return server;
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
        const s = await orgStats(auditReader(app), o.id, since);
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
    // or application/openmetrics-text; version=1.0.0 when the Accept header prefers it
    produces: 'text/plain; version=0.0.4',
    auth: 'apiKey',
    scope: 'authenticated',
    async handler(ctx) {
      requireOperator(app, ctx);
      const { contentType, body } = await app.metrics.text(ctx.headers.accept);
      return { body, headers: { 'content-type': contentType, vary: 'Accept' } };
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
      const s = await orgStats(auditReader(app), org, sinceHours(WINDOW_HOURS));
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
