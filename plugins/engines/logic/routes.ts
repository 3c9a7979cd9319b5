import type { App } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import type { LogicRequest, LogicVerifier } from './verifier.js';
import { LogicProblems } from './errors.js';

export const SCHEMA_BASE = 'https://proofgate.dev/schemas/logic';

/** Logic queries are short; the DSL's own cap (LIMITS.maxQueryChars) answers 413 with the endpoint's body. */
const BODY_LIMIT_BYTES = 256 * 1024;

export function registerRoutes(app: App, verifier: LogicVerifier): void {
  app.route({
    method: 'POST',
    path: '/verify/logic',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyLimit: BODY_LIMIT_BYTES,
    schema: { body: `${SCHEMA_BASE}/request.json`, response: `${SCHEMA_BASE}/response.json` },
    async handler(ctx) {
      const started = performance.now();
      // the client waits on this query alone: past z3's queue budget it is refused now, not answered late
      const reply = await verifier.verify(ctx.body as LogicRequest, ctx.signal, { queueBudget: true });
      const latency_ms = Math.round((performance.now() - started) * 100) / 100;
      const { diagnostic, ...fields } = reply.body;
      if (reply.httpStatus === 400) {
        const kind = diagnostic.developer_fields.error_kind as keyof typeof LogicProblems;
        const { status: _legacy, ...members } = fields;
        throw new HttpError(LogicProblems[kind] ?? LogicProblems.syntax, fields.error, {
          constraintId: diagnostic.developer_fields.constraint_id as string,
          extensions: { ...members, diagnostic, latency_ms },
        });
      }
      // the solver pool refused the query (overload: it would wait past its budget) or lost its thread: retry shortly
      const headers = diagnostic.developer_fields.error_kind === 'engine_unavailable' ? { 'retry-after': '1' } : undefined;
      return { status: reply.httpStatus, headers, verdict: diagnostic, layout: 'nested', subject: { engine: 'logic' }, body: { ...fields, latency_ms } };
    },
  });
}
