import type { App } from '../../../core/types.js';
import type { NlRequest, NlVerifier } from './verifier.js';

export const SCHEMA_BASE = 'https://proofgate.dev/schemas/natural-language';
const BODY_LIMIT_BYTES = 64 * 1024;

export function registerRoutes(app: App, verifier: NlVerifier): void {
  app.route({
    method: 'POST',
    path: '/verify/natural_language',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyLimit: BODY_LIMIT_BYTES,
    schema: { body: `${SCHEMA_BASE}/request.json`, response: `${SCHEMA_BASE}/response.json` },
    async handler(ctx) {
      const started = performance.now();
      const reply = await verifier.verify(ctx.body as NlRequest, { signal: ctx.signal, orgId: ctx.principal?.orgId ?? null });
      const latency_ms = Math.round((performance.now() - started) * 100) / 100;
      const { diagnostic, ...fields } = reply.body;
      return { status: reply.httpStatus, verdict: diagnostic, layout: 'nested', subject: { engine: 'natural_language' }, body: { ...fields, latency_ms } };
    },
  });
}
