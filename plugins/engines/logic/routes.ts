import type { App } from '../../../core/types.js';
import type { LogicRequest, LogicVerifier } from './verifier.js';

export const SCHEMA_BASE = 'https://proofgate.dev/schemas/logic';

/** Logic queries are short; the DSL's own cap (LIMITS.maxQueryChars) answers 413 with the endpoint's body. */
const BODY_LIMIT_BYTES = 256 * 1024;

export function registerRoutes(app: App, verifier: LogicVerifier): void {
  app.route({
    method: 'POST',
    path: '/verify/logic',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['verification'],
    bodyLimit: BODY_LIMIT_BYTES,
    schema: { body: `${SCHEMA_BASE}/request.json`, response: `${SCHEMA_BASE}/response.json` },
    async handler(ctx) {
      const started = performance.now();
      const reply = await verifier.verify(ctx.body as LogicRequest, ctx.signal);
      const latency_ms = Math.round((performance.now() - started) * 100) / 100;
      const { diagnostic, ...fields } = reply.body;
      return { status: reply.httpStatus, verdict: diagnostic, layout: 'nested', subject: { engine: 'logic' }, body: { ...fields, latency_ms } };
    },
  });
}
