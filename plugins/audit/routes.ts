import { HttpError, Problems } from '../../core/errors.js';
import type { App, RequestContext } from '../../core/types.js';
import { csvReply, entriesToCsv } from './csv.js';
import { AuditProblems } from './errors.js';
import { assertEntry, logIdOf, parseLogId, type AuditStatus } from './payload.js';
import { newestEntries, readEntry } from './store-read.js';
import type { CheckpointSigner } from './checkpoint.js';
import { exportRange, exportStream } from './export-stream.js';
import { auditStream } from './stream.js';
import type { LiveMetaTable } from './live-meta.js';

const S = 'https://proofgate.dev/schemas/audit';
export const EXPORT_MAX_ROWS = 1000;

const orgOf = (ctx: RequestContext) => ctx.principal!.orgId;

/** Cursor of GET /logs: the log id of the last entry of the previous page (opaque to clients). */
function cursorSeq(orgId: string, cursor: unknown): number | undefined {
  if (cursor === undefined) return undefined;
  const at = typeof cursor === 'string' ? parseLogId(cursor) : null;
  if (!at || at.orgId !== orgId) throw new HttpError(AuditProblems.badCursor, 'cursor is not one returned by this endpoint');
  return at.seq;
}

/**
 * What GET /logs may show of another key (issue 12): key ids are what rotation and revocation take,
 * so only an `admin:all` caller sees every key's id; any other key sees its own id and `null` for
 * the others — in `key_id`, and in the subject (`constraint_id`) of an administrative entry.
 */
function keyIdMask(ctx: RequestContext): (id: string | null) => string | null {
  const p = ctx.principal!;
  if (p.scopes.includes('admin:all')) return (id) => id;
  return (id) => (id !== null && id === p.keyId ? id : null);
}

function visibleSubject(status: string, subject: string | null, mask: (id: string | null) => string | null): string | null {
  if (status !== 'admin' || subject === null || !subject.startsWith('api_key:')) return subject;
  return mask(subject.slice('api_key:'.length)) === null ? null : subject;
}

async function jsonlExport(app: App, orgId: string, status: AuditStatus | undefined) {
  if (status !== undefined) {
    const error = { field: '/query/status', message: 'a status filter leaves gaps no verifier can tell from deletions: format=jsonl exports the whole chain (filter it after verifying, or use format=csv)' };
    throw new HttpError(Problems.validation, `${error.field}: ${error.message}`, { errors: [error] });
  }
  const secret = app.config.secrets.audit_secret_key;
  const signer = app.service('attestation.signer') ?? null;
  if (!secret) throw new HttpError(AuditProblems.unavailable, 'SVC_AUDIT_SECRET_KEY is not set: the audit trail cannot be exported for verification');
  if (!signer) throw new HttpError(AuditProblems.unavailable, 'no attestation key is available to sign the export checkpoint (the attestation plugin is disabled or has no key)');
  const range = await exportRange(app.store, orgId);
  if (!range) throw new HttpError(AuditProblems.notFound, 'your organisation has no audit entries to export yet');
  return {
    headers: {
      'content-type': 'application/jsonl; charset=utf-8',
      'content-disposition': `attachment; filename="audit-export-${range.first}-${range.last}.jsonl"`,
      'cache-control': 'no-store',
    },
    body: exportStream(app.store, signer, secret, orgId, range),
  };
}

export function registerAuditRoutes(app: App, live?: LiveMetaTable): void {
  app.route({
    method: 'GET',
    path: '/audit/logs',
    auth: 'jwt',
    schema: { query: `${S}/logs.query.json`, response: `${S}/logs.response.json` },
    async handler(ctx) {
      const q = ctx.query as { limit: number; status?: AuditStatus };
      const page = await newestEntries(app.store, orgOf(ctx), { limit: q.limit, status: q.status });
      return { body: { logs: page.entries, count: page.entries.length } };
    },
  });

  app.route({
    method: 'GET',
    path: '/audit/logs/:log_id',
    auth: 'jwt',
    schema: { params: `${S}/log-id.params.json`, response: `${S}/entry.json` },
    async handler(ctx) {
      const e = await readEntry(app.store, orgOf(ctx), ctx.params.log_id);
      if (e === undefined) throw new HttpError(AuditProblems.notFound, 'no audit entry with this id in your organisation');
      try {
        assertEntry(e);
      } catch {
        throw new HttpError(AuditProblems.security, 'the stored audit entry is malformed', { constraintId: 'audit.payload_malformed' });
      }
      return { body: e };
    },
  });

  app.route({
    method: 'GET',
    path: '/audit/stream',
    produces: 'text/event-stream',
    auth: 'jwt',
    schema: { query: `${S}/stream.query.json` },
    handler: (ctx) => auditStream(app, ctx, live),
  });

  app.route({
    method: 'GET',
    path: '/audit/export',
    produces: 'text/csv',
    auth: 'jwt',
    // an operator's `admin:all` API key exports too (scripts hold keys, not user sessions); any
    // other API key is refused in the handler, since the route's scope would bind JWT users as well
    authAlso: ['apiKey'],
    scope: 'authenticated',
    schema: { query: `${S}/export.query.json` },
    async handler(ctx) {
      const p = ctx.principal!;
      if (p.kind === 'apiKey' && !p.scopes.includes('admin:all')) throw new HttpError(Problems.forbidden, 'exporting the audit trail with an API key needs the admin:all scope (or sign in: any user of the organisation may)');
      const q = ctx.query as { status?: AuditStatus; format?: 'csv' | 'jsonl' };
      if (q.format === 'jsonl') return jsonlExport(app, orgOf(ctx), q.status);
      // the spec's export: CSV of the newest ≤ 1,000 entries; the verifiable whole chain is format=jsonl
      const page = await newestEntries(app.store, orgOf(ctx), { limit: EXPORT_MAX_ROWS, status: q.status });
      return csvReply(entriesToCsv(page.entries), 'audit-export.csv');
    },
  });

  app.route({
    method: 'GET',
    path: '/logs',
    auth: 'apiKey',
    scope: 'verify:read',
    schema: { query: `${S}/tenant-logs.query.json`, response: `${S}/tenant-logs.response.json` },
    async handler(ctx) {
      const org = orgOf(ctx);
      const q = ctx.query as { limit: number; cursor?: string; status?: AuditStatus };
      const page = await newestEntries(app.store, org, { limit: q.limit, status: q.status, beforeSeq: cursorSeq(org, q.cursor) });
      const mask = keyIdMask(ctx);
      const logs = page.entries.map((e) => ({
        log_id: e.log_id,
        timestamp: e.timestamp,
        route: e.route,
        method: e.method,
        key_id: mask(e.key_id),
        status: e.status,
        engine: e.engine,
        http_status: e.http_status,
        constraint_id: visibleSubject(e.status, e.constraint_id, mask),
        proof_ref: e.proof_ref,
        request_hash: e.request_hash,
      }));
      return { body: { logs, next_cursor: page.next === null ? null : logIdOf(org, page.next) } };
    },
  });
}
