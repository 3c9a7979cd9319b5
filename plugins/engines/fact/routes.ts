import type { App } from '../../../core/types.js';
import type { FactRequest, FactVerifier } from './verifier.js';

export const SCHEMA_BASE = 'https://proofgate.dev/schemas/fact';
/** the context cap (rules.ts LIMITS) plus room for the claim and JSON escaping */
const BODY_LIMIT_BYTES = 512 * 1024;

export function registerRoutes(app: App, verifier: FactVerifier): void {
  app.route({
    method: 'POST',
    path: '/verify/fact',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyLimit: BODY_LIMIT_BYTES,
    schema: { body: `${SCHEMA_BASE}/request.json`, response: `${SCHEMA_BASE}/response.json` },
    async handler(ctx) {
      const started = performance.now();
      const r = await verifier.verify(ctx.body as FactRequest, { signal: ctx.signal });
      const latency_ms = Math.round((performance.now() - started) * 100) / 100;
      // decisions §2: the endpoint's own verdict fields at the top level, the DiagnosticResult beside them
      const body = { verdict: r.verdict, confidence: r.confidence, reasoning: r.reasoning, provider_used: r.provider_used, latency_ms };
      return { status: 200, verdict: r.diagnostic, body };
    },
  });
}
