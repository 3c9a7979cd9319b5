import type { App, EngineHandle, Verifier } from '../../../core/types.js';
import { describeFieldErrors, HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/plugin/kit.js';
import { blocked, reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { DIALECT_NAMES, resolveDialect } from './dialects.js';
import { SqlProblems } from './errors.js';
import type { SqlInput } from './engine.js';

export const SQL_TASK_TIMEOUT_MS = 5_000;

/**
 * A worker that times out or crashes produced no verdict, so the answer fails closed: BLOCKED,
 * never VERIFIED. A deadline is a cost limit; a crash is an execution failure. A full queue is
 * overload, answered 503 like other engines.
 */
export function failClosed(err: unknown, dialect: string): DiagnosticResult {
  const f = engineFailure(err, () => new HttpError(SqlProblems.engineUnavailable, 'the SQL engine is overloaded or starting', { headers: { 'retry-after': '1' } }));
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

/** the /verify/sql body schema: the route and `verifier.sql` refuse exactly the same inputs */
export const SQL_REQUEST_SCHEMA = 'https://proofgate.dev/schemas/sql/verify.request.json';

/**
 * `verifier.sql` for composite routes (batch, consensus, agents): the input is checked against the
 * route's own body schema, but an unusable input becomes a BLOCKED verdict for that item instead
 * of a 400 for the whole request. A refusal that only concerns `schema_ddl` is a schema error, any
 * other a parse error (the two constraint ids the spec reserves for unusable input).
 */
export function sqlVerifier(app: App, engine: EngineHandle): Verifier {
  return {
    async verify(raw, opts = {}) {
      const base = { is_valid: false, malicious_classification: false };
      // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
      const body = { ...raw };
      const errors = app.validate(SQL_REQUEST_SCHEMA, body);
      if (errors.length) {
        const onlyDdl = errors.every((e) => e.field.startsWith('/body/schema_ddl'));
        return blocked(`Invalid SQL request: ${describeFieldErrors(errors)}.`, onlyDdl ? 'sql_verifier.schema_parse_error' : 'sql_verifier.parse_error', { ...base, errors }, 'BLOCKED');
      }
      const req = body as unknown as SqlInput;
      const dialect = resolveDialect(req.dialect);
      if (!dialect) return blocked(`unsupported dialect; one of: ${DIALECT_NAMES.join(', ')}`, 'sql_verifier.parse_error', base, 'BLOCKED');
      const input: SqlInput = { query: req.query, schema_ddl: req.schema_ddl, dialect: dialect.name, allow_writes: req.allow_writes === true };
      return runSql(engine, input, opts.signal);
    },
  };
}
