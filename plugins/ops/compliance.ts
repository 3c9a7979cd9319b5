import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import { csvReply, entriesToCsv, MalformedEntryError, parseLogId } from '../audit/index.js';
import type { ApiKeys, SecurityEvents } from '../auth/index.js';
import { OpsProblems } from './errors.js';
import { auditReader, emptyCounts } from './stats.js';

const S = 'https://proofgate.dev/schemas/ops';
/** a rotation policy the report checks active keys against */
export const KEY_MAX_AGE_DAYS = 90;
const EXPORT_CAP = 100_000;

export function auditSecret(app: App): string {
  const s = app.config.secrets.audit_secret_key;
  if (!s) throw new HttpError(OpsProblems.unavailable, 'SVC_AUDIT_SECRET_KEY is not set: audit entries cannot be verified');
  return s;
}

/**
 * A period bound as the instant it names, in the stored form (`toISOString`, UTC, milliseconds).
 * The schema's `date-time` is RFC 3339, which also allows offsets, a space or a lower-case `t`/`z`,
 * and a leap second; timestamps are compared as text, so a bound in any other form than the stored
 * one counted the wrong entries, and `:60` (which Date cannot hold) threw a 500. A leap second is
 * the instant after `:59`, as POSIX time counts it.
 */
export function periodBound(v: string | undefined, field: 'from' | 'to'): string | undefined {
  if (v === undefined) return undefined;
  let ms = Date.parse(v);
  if (Number.isNaN(ms)) {
    const leap = /^(.{16}):60(?=[.zZ+-]|$)/.exec(v);
    if (leap) ms = Date.parse(`${leap[1]}:59${v.slice(19)}`) + 1000;
  }
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    const error = { field: `/query/${field}`, message: 'is not a date-time this server can represent' };
    throw new HttpError(Problems.validation, `${error.field}: ${error.message}`, { errors: [error] });
  }
  return new Date(ms).toISOString();
}

/** Admin routes act on the caller's own organisation: another one is 403 (existence is never checked). */
export function ownOrg(ctx: RequestContext, orgId: string): string {
  if (orgId !== ctx.principal!.orgId) throw new HttpError(OpsProblems.otherOrg, 'admin routes are limited to your own organisation');
  return orgId;
}

export function registerComplianceRoutes(app: App, services: { keys(): ApiKeys; events(): SecurityEvents }): void {
  app.route({
    method: 'GET',
    path: '/admin/compliance/export/csv',
    produces: 'text/csv',
    auth: 'apiKey',
    scope: 'admin:all',
    async handler(ctx) {
      const org = ctx.principal!.orgId;
      // the whole trail, oldest first; values are exported as stored (verify checks them)
      const rows = (await auditReader(app)?.walk(org, EXPORT_CAP)) ?? [];
      return csvReply(entriesToCsv(rows), `audit-trail-${org}.csv`);
    },
  });

  app.route({
    method: 'GET',
    path: '/admin/compliance/verify/:log_id',
    auth: 'apiKey',
    scope: 'admin:all',
    schema: { params: 'https://proofgate.dev/schemas/audit/log-id.params.json', response: `${S}/verify.response.json` },
    async handler(ctx) {
      // refused up front without the secret: the entries could not be vouched for
      auditSecret(app);
      const at = parseLogId(ctx.params.log_id);
      if (!at || at.orgId !== ctx.principal!.orgId) throw new HttpError(OpsProblems.notFound, 'no audit entry with this id in your organisation');
      let r;
      try {
        r = await auditReader(app)?.verifyEntry(at.orgId, at.seq);
      } catch (err) {
        if (err instanceof MalformedEntryError) {
          ctx.log.error({ err: err.message, log_id: ctx.params.log_id }, 'malformed audit entry');
          throw new HttpError(OpsProblems.security, 'the stored audit entry is malformed and cannot be vouched for', { constraintId: 'audit.payload_malformed' });
        }
        throw err;
      }
      if (!r) throw new HttpError(OpsProblems.notFound, 'no audit entry with this id in your organisation');
      return {
        body: { log_id: ctx.params.log_id, org_id: at.orgId, seq: at.seq, valid: r.valid, checks: r.checks, verified_at: new Date().toISOString() },
      };
    },
  });

  app.route({
    method: 'GET',
    path: '/admin/compliance/report/soc2/:org_id',
    auth: 'apiKey',
    scope: 'admin:all',
    schema: { params: `${S}/org.params.json`, query: `${S}/period.query.json`, response: `${S}/soc2.response.json` },
    async handler(ctx) {
      const org = ownOrg(ctx, ctx.params.org_id);
      // refused up front without the secret: the entries could not be vouched for
      auditSecret(app);
      const q = ctx.query as { from?: string; to?: string };
      const to = periodBound(q.to, 'to') ?? new Date().toISOString();
      const from = periodBound(q.from, 'from') ?? new Date(Date.parse(to) - 30 * 86_400_000).toISOString();
      // an empty period would come back as a passing report of nothing: the caller swapped the bounds
      if (from > to) {
        const error = { field: '/query/from', message: `is after the period's end (${to})` };
        throw new HttpError(Problems.validation, `${error.field}: ${error.message}`, { errors: [error] });
      }
      const counts = emptyCounts();
      // integrity is checked over the whole chain: an entry inside the period is only as sound as its links
      // a chain pruned by retention is checked from its signed prune checkpoint, not from entry 1
      const walk = (await auditReader(app)?.verifyChain(org, (e) => {
        if (e.timestamp >= from && e.timestamp <= to) counts[e.status]++;
      })) ?? { entries: 0, broken: null };
      const keys = await services.keys().listActive(org);
      const staleBefore = new Date(Date.now() - KEY_MAX_AGE_DAYS * 86_400_000).toISOString();
      const staleKeys = keys.filter((k) => k.created_at < staleBefore).length;
      const events = await services.events().list(org, from);
      const ev = (t: string) => events.filter((e) => e.type === t && e.first_at <= to).reduce((n, e) => n + e.count, 0);
      const controls = [
        {
          id: 'CC7.2-audit-trail-integrity',
          status: walk.broken ? 'fail' : 'pass',
          evidence: walk.broken ? `chain broken at seq ${walk.broken.seq}: ${walk.broken.reason}` : `${walk.entries} entries verified`,
        },
        {
          id: 'CC6.1-api-key-rotation',
          status: staleKeys ? 'fail' : 'pass',
          evidence: `${staleKeys} of ${keys.length} active keys older than ${KEY_MAX_AGE_DAYS} days`,
        },
      ];
      return {
        body: {
          org_id: org,
          generated_at: new Date().toISOString(),
          period: { from, to },
          figures: {
            verifications: counts.verified + counts.blocked + counts.unverifiable,
            verified: counts.verified,
            blocked: counts.blocked,
            unverifiable: counts.unverifiable,
            admin_actions: counts.admin,
            active_api_keys: keys.length,
            auth_failures: ev('auth_failure'),
            rate_limit_hits: ev('rate_limited'),
          },
          chain_integrity: { ok: walk.broken === null, entries_checked: walk.entries, first_break: walk.broken },
          controls,
        },
      };
    },
  });
}
