import type { App, EngineHandle, RequestContext, Reply } from '../../../core/types.js';
import { diagnosticBody } from '../../../core/verdict.js';
import { runMath } from './verifier.js';
import type { MathRequest } from './engine.js';

const S = 'https://proofgate.dev/schemas/math';

/**
 * POST /verify/math. The engine runs in the worker pool (a hostile expression can at worst burn one
 * task's deadline); the route forwards the schema-checked body and lays out the verdict: HTTP 200
 * for every verdict, 503 only when the pool cannot take the task (see verifier.ts).
 */
export function mathRoutes(app: App, engine: EngineHandle): void {
  app.route({
    method: 'POST',
    path: '/verify/math',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['verification', 'attestable'],
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    async handler(ctx: RequestContext): Promise<Reply> {
      const body = ctx.body as MathRequest;
      // an attestation binds the evaluated input: the normalised expression the proof_ref binds too
      ctx.state.attestationQuery = body.expression.normalize('NFKC').trim();
      ctx.state.attestationEngine = 'math';
      const verdict = await runMath(engine, body, ctx.signal);
      return { status: 200, body: diagnosticBody(verdict) };
    },
  });
}
