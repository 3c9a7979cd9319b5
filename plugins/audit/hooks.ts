import { sha256Hex, SHA256_REF, sha256Ref } from '../../core/json/canonical.js';
import { HttpError, Problems } from '../../core/errors.js';
import { StoreFullError } from '../../core/store/store.js';
import type { App, Reply, RequestContext } from '../../core/types.js';
import type { SecurityEvents } from '../auth/index.js';
import { ChainUnavailableError, type AuditChain } from './chain.js';
import { AUDIT_SLOTS } from './slots.js';
import { AuditProblems } from './errors.js';
import type { AuditFields, AuditStatus } from './payload.js';

const MAX_LLM_OUTPUT = 65_536;
/** constraint ids that mark a blocked attack rather than a failed proof */
const INJECTION = /inject|exfiltrat|malicious|poison|jailbreak|prompt/i;

/** Bounded metric label: the route's last static segment (`/verify/math` → `math`). */
export function engineLabel(routePath: string): string {
  const segs = routePath.split('/').filter((s) => s && !s.startsWith(':'));
  const last = segs[segs.length - 1] ?? 'root';
  return /^[a-z0-9_-]{1,32}$/.test(last) ? last : 'other';
}

function requestHash(ctx: RequestContext): string | null {
  if (!ctx.rawBody || ctx.rawBody.length === 0) return null;
  const json = (ctx.route.bodyType ?? 'json') === 'json' && ctx.body !== undefined;
  return json ? sha256Ref(ctx.body) : 'sha256:' + sha256Hex(ctx.rawBody);
}

const shortStr = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : null);

/** Verdict summary of a reply: the status of the verdict it carries, else by HTTP status. */
export function summarize(ctx: RequestContext, reply: Reply): AuditFields {
  const v = reply.verdict;
  const df: Record<string, unknown> = v?.developer_fields ?? {};
  const http = reply.status ?? 200;
  const status: AuditStatus =
    v?.status === 'VERIFIED' ? 'verified' : v?.status === 'BLOCKED' ? 'blocked' : v?.status === 'UNVERIFIABLE' ? 'unverifiable' : http === 403 ? 'blocked' : 'unverifiable';
  // a cut inside a surrogate pair leaves a lone surrogate, which has no RFC 8785 form: the entry
  // could not be hashed and the verdict would be withheld (503); the half character becomes U+FFFD
  const llm = typeof df.raw_llm_output === 'string' ? (df.raw_llm_output.slice(0, MAX_LLM_OUTPUT) as string & { toWellFormed(): string }).toWellFormed() : null;
  return {
    route: ctx.routePath,
    method: ctx.method,
    key_id: ctx.principal?.keyId ?? null,
    user_id: ctx.principal?.userId ?? null,
    request_hash: requestHash(ctx),
    status,
    engine: shortStr(df.engine, 64) ?? shortStr(reply.subject?.engine, 64) ?? engineLabel(ctx.routePath),
    http_status: http,
    proof_ref: v && typeof v.proof_ref === 'string' && SHA256_REF.test(v.proof_ref) ? v.proof_ref : null,
    constraint_id: shortStr(df.constraint_id, 128),
    raw_llm_output: llm,
  };
}


/**
 * The entry of a verification request refused by a thrown error after authentication; a policy
 * block (err.policyBlock) is a verdict on the request's content and is recorded as `blocked`.
 */
export function refusedFields(ctx: RequestContext, err: HttpError): AuditFields {
  return {
    route: ctx.routePath,
    method: ctx.method,
    key_id: ctx.principal?.keyId ?? null,
    user_id: ctx.principal?.userId ?? null,
    request_hash: requestHash(ctx),
    status: err.policyBlock ? 'blocked' : 'refused',
    engine: engineLabel(ctx.routePath),
    http_status: err.status,
    proof_ref: null,
    constraint_id: (err.constraintId ?? err.code).slice(0, 128),
    raw_llm_output: null,
  };
}

function unavailable(detail: string): HttpError {
  return new HttpError(AuditProblems.unavailable, detail, { headers: { 'retry-after': '5' } });
}

/** Fail-closed gate: the audit chain of the caller's organisation must be writable before the work is done. */
export async function assertAuditable(chain: AuditChain | null, ctx: RequestContext): Promise<string> {
  if (!chain) throw unavailable('audit logging is not configured (SVC_AUDIT_SECRET_KEY is missing): verification is refused');
  const org = ctx.principal?.orgId;
  if (!org) throw unavailable('no organisation to audit this request for: verification is refused');
  try {
    await chain.head(org);
  } catch (err) {
    if (err instanceof ChainUnavailableError) {
      ctx.log.error({ err: err.message, org }, 'audit chain cannot be loaded');
      throw unavailable("the organisation's audit chain cannot be loaded: verification is refused");
    }
    throw err;
  }
  return org;
}

export function registerAuditHooks(app: App, chain: AuditChain | null, events: SecurityEvents | undefined): void {
  // status is the truth of the verdict, admission the policy decision beside it (decisions §1): proven-unsafe
  // code is status="verified", admission="blocked", so a "passed" panel must select on admission
  const verifications = app.metrics.counter(
    'svc_verifications_total',
    'Audited verification requests by engine, verdict status and admission (admit, blocked, deny; none when the answer has no admission)',
    ['engine', 'status', 'admission'],
  );
  // the gate runs for every route; the record phase only for routes that declare `verification`
  app.phase('gate', async (ctx) => {
    if (!ctx.route.verification) return;
    await assertAuditable(chain, ctx);
  });

  // awaited by the kernel before the response is written: no verdict leaves without its entry
  app.phase('record', async (ctx, outcome) => {
    if (outcome.kind === 'refused') return recordRefusal(ctx, outcome.error);
    const reply = outcome.reply;
    const org = await assertAuditable(chain, ctx);
    const fields = summarize(ctx, reply);
    let entry;
    try {
      entry = await chain!.append(org, fields, { with: ctx.get(AUDIT_SLOTS.with) });
    } catch (err) {
      // a full disk is logged by the store once per episode, not here once per request
      if (err instanceof StoreFullError) throw new HttpError(Problems.storeFull, 'the audit entry could not be written: the data store has no space left; the result is withheld');
      ctx.log.error({ err, org }, 'audit append failed: response withheld');
      throw unavailable('the audit entry could not be written: the result is withheld');
    }
    ctx.set(AUDIT_SLOTS.logId, entry.log_id);
    ctx.responseHeaders['x-audit-log-id'] = entry.log_id;
    verifications.inc({ engine: engineLabel(ctx.routePath), status: fields.status, admission: admissionLabel(reply) });
    recordBlock(org, fields);
  });

  const recordBlock = (org: string, fields: AuditFields) => {
    if (fields.status !== 'blocked' || !events) return;
    const injection = fields.constraint_id !== null && INJECTION.test(fields.constraint_id);
    events.record(org, injection ? 'injection_blocked' : 'blocked_verification', { keyId: fields.key_id, detail: fields.constraint_id ?? fields.route });
  };

  // a verification refused once admitted (400, 403, 413, 5xx…) leaves a trace in the chain of the
  // caller's organisation; before authentication (401) there is not even an organisation to charge
  const recordRefusal = async (ctx: RequestContext, err: HttpError): Promise<void> => {
    const org = ctx.principal?.orgId;
    // every refusal after authentication is a trace, a missing scope and a 429 included (issue 12 item 10);
    // group commit makes a flood of them cost batched appends, and retention bounds what they keep.
    // Only a refusal because the chain cannot take an entry (audit_unavailable, store_full) is left
    // to the logs and security events.
    if (!chain || !org || err.code === 'audit_unavailable' || err.code === Problems.storeFull.code) return;
    const fields = refusedFields(ctx, err);
    let entry;
    try {
      entry = await chain.append(org, fields);
    } catch (appendErr) {
      // the request is refused either way: no verdict leaves unaudited, so the refusal is still sent
      ctx.log.error({ err: appendErr, org }, 'audit append of a refused request failed');
      return;
    }
    ctx.set(AUDIT_SLOTS.logId, entry.log_id);
    ctx.responseHeaders['x-audit-log-id'] = entry.log_id;
    // a refusal carries no verdict; a policy block is a denial all the same
    verifications.inc({ engine: engineLabel(ctx.routePath), status: fields.status, admission: err.policyBlock ? 'deny' : 'none' });
    recordBlock(org, fields);
  };
}

/** Bounded label: the verdict's admission lower-cased, `none` when the answer has none (math, logic, …). */
function admissionLabel(reply: Reply): string {
  const a = reply.verdict?.admission;
  return a === 'ADMIT' ? 'admit' : a === 'BLOCKED' ? 'blocked' : a === 'DENY' ? 'deny' : 'none';
}
