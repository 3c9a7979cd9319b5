import type { EngineHandle, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/kit.js';
import { blocked, reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { resolveDialect } from './dialects.js';
import { SqlProblems } from './errors.js';
import { LIMITS } from './meta.js';
import type { SqlInput } from './engine.js';

export const SQL_TASK_TIMEOUT_MS = 5_000;

/**
 * A worker that times out or crashes produced no verdict, so the answer fails closed: BLOCKED,
 * never VERIFIED. A deadline is a cost limit; a crash is an execution failure. A full queue is
 * overload, answered 503 like other engines.
 */
export function failClosed(err: unknown, dialect: string): DiagnosticResult {
  const f = engineFailure(err, () => new HttpError(SqlProblems.engineUnavailable, 'the SQL engine is overloaded or starting'));
  const fields = { is_valid: false, malicious_classification: false, dialect, reason: f?.kind ?? 'failed' };
  if (f?.kind === 'timeout') return blocked('verification exceeded its time limit', 'sql_verifier.complexity_limit_exceeded', fields, 'BLOCKED');
  return blocked('verification failed inside the engine', 'sql_verifier.execution_error', fields, 'BLOCKED');
}

/** Runs one request in the worker pool; the input has passed the route schema or `normalise`. */
export async function runSql(engine: EngineHandle, input: SqlInput, signal?: AbortSignal): Promise<DiagnosticResult> {
  try {
    return reviveDiagnostic(await engine.run('verify', input, { timeoutMs: SQL_TASK_TIMEOUT_MS, signal }));
  } catch (err) {
    return failClosed(err, input.dialect ?? 'sqlite');
  }
}

/**
 * `verifier.sql` for composite routes (batch): the same checks as the route's JSON schema, but an
 * unusable input becomes a BLOCKED verdict for that item instead of a 400 for the whole request.
 */
export function sqlVerifier(engine: EngineHandle): Verifier {
  return {
    async verify(raw, opts = {}) {
      const base = { is_valid: false, malicious_classification: false };
      const dialect = resolveDialect(typeof raw.dialect === 'string' ? raw.dialect : undefined);
      if (!dialect || (raw.dialect !== undefined && typeof raw.dialect !== 'string')) {
        return blocked('unsupported dialect', 'sql_verifier.parse_error', base, 'BLOCKED');
      }
      if (typeof raw.query !== 'string' || !raw.query.trim() || raw.query.length > LIMITS.query_chars) {
        return blocked('query must be a non-empty string within the size limit', 'sql_verifier.parse_error', base, 'BLOCKED');
      }
      if (typeof raw.schema_ddl !== 'string' || !raw.schema_ddl.trim() || raw.schema_ddl.length > LIMITS.schema_ddl_chars) {
        return blocked('schema_ddl must be a non-empty string within the size limit', 'sql_verifier.schema_parse_error', base, 'BLOCKED');
      }
      if (raw.allow_writes !== undefined && typeof raw.allow_writes !== 'boolean') {
        return blocked('allow_writes must be a boolean', 'sql_verifier.parse_error', base, 'BLOCKED');
      }
      const input: SqlInput = { query: raw.query, schema_ddl: raw.schema_ddl, dialect: dialect.name, allow_writes: raw.allow_writes === true };
      return runSql(engine, input, opts.signal);
    },
  };
}
