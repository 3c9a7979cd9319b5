import type { App, EngineHandle, RequestContext } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { blocked, diagnosticBody, reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { DIALECT_NAMES, resolveDialect } from './dialects.js';
import { SqlProblems } from './errors.js';
import type { SqlInput } from './engine.js';

const S = 'https://proofgate.dev/schemas/sql';
export const SQL_TASK_TIMEOUT_MS = 5_000;
export const SQL_BODY_LIMIT = 256 * 1024;

/** EngineError from the kernel's worker pool, recognised by shape so this file needs no kernel internals. */
function engineFailure(err: unknown): { kind: string } | null {
  const e = err as { name?: string; kind?: unknown };
  return e && e.name === 'EngineError' && typeof e.kind === 'string' ? { kind: e.kind } : null;
}

/**
 * A worker that times out or crashes produced no verdict, so the answer fails closed: BLOCKED,
 * never VERIFIED. A deadline is a cost limit; a crash is an execution failure. A full queue is
 * overload, answered 503 like other engines.
 */
export function failClosed(err: unknown, dialect: string): DiagnosticResult {
  const f = engineFailure(err);
  const fields = { is_valid: false, malicious_classification: false, dialect, reason: f?.kind ?? 'failed' };
  if (f?.kind === 'unavailable') throw new HttpError(SqlProblems.engineUnavailable, 'the SQL engine is overloaded or starting');
  if (f?.kind === 'cancelled') throw err;
  if (f?.kind === 'timeout') return blocked('verification exceeded its time limit', 'sql_verifier.complexity_limit_exceeded', fields, 'BLOCKED');
  return blocked('verification failed inside the engine', 'sql_verifier.execution_error', fields, 'BLOCKED');
}

export function registerRoutes(app: App, engine: EngineHandle): void {
  app.route({
    method: 'POST',
    path: '/verify/sql',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['verification'],
    bodyLimit: SQL_BODY_LIMIT,
    schema: { body: `${S}/verify.request.json`, response: `${S}/verify.response.json` },
    handler: async (ctx: RequestContext) => {
      const body = ctx.body as SqlInput;
      const dialect = resolveDialect(body.dialect);
      if (!dialect) {
        throw new HttpError(SqlProblems.unsupportedDialect, `dialect must be one of: ${DIALECT_NAMES.join(', ')}`, {
          errors: [{ field: '/body/dialect', message: 'unsupported dialect' }],
        });
      }
      const input: SqlInput = { query: body.query, schema_ddl: body.schema_ddl, dialect: dialect.name, allow_writes: body.allow_writes === true };
      let verdict: DiagnosticResult;
      try {
        verdict = reviveDiagnostic(await engine.run('verify', input, { timeoutMs: SQL_TASK_TIMEOUT_MS, signal: ctx.signal }));
      } catch (err) {
        verdict = failClosed(err, dialect.name);
      }
      // Every verdict, including BLOCKED ones, is the answer to the request: 200, gate on admission.
      return { status: 200, body: diagnosticBody(verdict) };
    },
  });
}
