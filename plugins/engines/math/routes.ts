import type { App, EngineHandle, RequestContext, Reply } from '../../../core/types.js';
import { blocked, diagnosticBody, reviveDiagnostic } from '../../../core/verdict.js';
import { HttpError } from '../../../core/errors.js';
import { C, MathProblems } from './errors.js';
import type { MathRequest } from './engine.js';

const S = 'https://proofgate.dev/schemas/math';

function isEngineError(err: unknown): err is { name: 'EngineError'; kind: string } {
  return !!err && typeof err === 'object' && (err as { name?: unknown }).name === 'EngineError';
}

/**
 * POST /verify/math. The engine runs in the worker pool (a hostile expression can at worst burn
 * one task's deadline); the route only forwards the validated body and lays out the verdict.
 * A worker that times out or dies is answered 503 problem+json carrying the BLOCKED verdict
 * (`math_verifier.timeout` / `math_verifier.engine_unavailable`) under `diagnostic`.
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
      let raw: unknown;
      try {
        raw = await engine.run('verify', body, { signal: ctx.signal });
      } catch (err) {
        if (!isEngineError(err)) throw err;
        const timeout = err.kind === 'timeout';
        const id = timeout ? C.timeout : C.unavailable;
        const msg = timeout ? 'The math engine exceeded its deadline.' : 'The math engine is unavailable.';
        const verdict = blocked(msg, id, { is_valid: false, error: timeout ? 'timeout' : 'engine_unavailable', message: msg });
        throw new HttpError(timeout ? MathProblems.timeout : MathProblems.unavailable, msg, {
          constraintId: id,
          extensions: { diagnostic: diagnosticBody(verdict) },
          headers: timeout ? undefined : { 'retry-after': '1' },
        });
      }
      return { status: 200, body: diagnosticBody(reviveDiagnostic(raw)) };
    },
  });
}
