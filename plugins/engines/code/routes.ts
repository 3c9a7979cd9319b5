import type { App, EngineHandle, RequestContext } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { CodeProblems } from './errors.js';
import { CONSTRAINTS, MAX_CODE_BYTES } from './verdict.js';
import { CODE_REQUEST_SCHEMA, runCode, tooLarge } from './verifier.js';
import type { CodeInput } from './engine.js';

const S = 'https://proofgate.dev/schemas/code';
/** Raw body cap: MAX_CODE_BYTES of code plus room for JSON escaping of quotes, backslashes and newlines. */
export const CODE_BODY_LIMIT = 512 * 1024;

export function registerRoutes(app: App, engine: EngineHandle): void {
  app.route({
    method: 'POST',
    path: '/verify/code',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyLimit: CODE_BODY_LIMIT,
    schema: { body: CODE_REQUEST_SCHEMA, response: `${S}/verify.response.json` },
    handler: async (ctx: RequestContext) => {
      const body = ctx.body as CodeInput;
      const bytes = Buffer.byteLength(body.code, 'utf8');
      if (bytes > MAX_CODE_BYTES) {
        throw new HttpError(CodeProblems.inputTooLarge, tooLarge(bytes), {
          constraintId: CONSTRAINTS.inputTooLarge,
          errors: [{ field: '/body/code', message: `longer than ${MAX_CODE_BYTES} UTF-8 bytes` }],
        });
      }
      // Every verdict, BLOCKED ones included, is the answer to the request: 200; clients gate on admission.
      return { status: 200, verdict: await runCode(engine, body.code, body.language, ctx.signal) };
    },
  });
}
