import type { App, EngineHandle, RequestContext, Reply } from '../../../core/types.js';
import { exactMember } from '../../../core/json/exact.js';
import { MATH_REQUEST_SCHEMA, runMath } from './verifier.js';
import type { MathRequest } from './engine.js';
import { normalizeMathInput } from './normalize.js';

const S = 'https://proofgate.dev/schemas/math';
/** bytes of a /verify/math body */
export const MATH_BODY_LIMIT = 64 * 1024;

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
    verification: { attest: true },
    // claimed numbers are compared exactly: 1e999 reaches the handler as text, not Infinity; only
    // these two members take a number at all, so `{"expression": 1e999}` stays a 400, never text
    exactNumbers: ['expected_value', 'tolerance'],
    // an expression is at most 5000 characters; the cap keeps the exact-number scan microseconds
    bodyLimit: MATH_BODY_LIMIT,
    schema: { body: MATH_REQUEST_SCHEMA, response: `${S}/response.json` },
    async handler(ctx: RequestContext): Promise<Reply> {
      const body = { ...(ctx.body as MathRequest) };
      // JSON numbers are read as written, not as the double JSON.parse made of them
      const texts: NonNullable<MathRequest['exact_text']> = {};
      for (const k of ['expected_value', 'tolerance'] as const) {
        if (typeof body[k] === 'number' && ctx.rawBody) {
          const text = exactMember(ctx.rawBody, k);
          if (text !== undefined) texts[k] = text;
        }
      }
      if (texts.expected_value !== undefined || texts.tolerance !== undefined) body.exact_text = texts;
      // an attestation binds the evaluated input: the normalised expression the proof_ref binds too
      const query = normalizeMathInput(body.expression);
      const verdict = await runMath(engine, body, ctx.signal);
      return { status: 200, verdict, subject: { engine: 'math', query } };
    },
  });
}
