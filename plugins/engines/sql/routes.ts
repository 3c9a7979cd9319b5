import type { App, EngineHandle, RequestContext } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { DIALECT_NAMES, resolveDialect } from './dialects.js';
import { SqlProblems } from './errors.js';
import { runSql, SQL_REQUEST_SCHEMA } from './verifier.js';
import type { SqlInput } from './engine.js';

const S = 'https://proofgate.dev/schemas/sql';
export const SQL_BODY_LIMIT = 256 * 1024;

export function registerRoutes(app: App, engine: EngineHandle): void {
  app.route({
    method: 'POST',
    path: '/verify/sql',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyLimit: SQL_BODY_LIMIT,
    schema: { body: SQL_REQUEST_SCHEMA, response: `${S}/verify.response.json` },
    handler: async (ctx: RequestContext) => {
      const body = ctx.body as SqlInput;
      const dialect = resolveDialect(body.dialect);
      if (!dialect) {
        throw new HttpError(SqlProblems.unsupportedDialect, `dialect must be one of: ${DIALECT_NAMES.join(', ')}`, {
          errors: [{ field: '/body/dialect', message: 'unsupported dialect' }],
        });
      }
      const input: SqlInput = { query: body.query, schema_ddl: body.schema_ddl, dialect: dialect.name, allow_writes: body.allow_writes === true };
      // Every verdict, including BLOCKED ones, is the answer to the request: 200, gate on admission.
      return { status: 200, verdict: await runSql(engine, input, ctx.signal) };
    },
  });
}
