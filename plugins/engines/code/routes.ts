import type { App, EngineHandle, RequestContext } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/kit.js';
import { reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { CodeProblems } from './errors.js';
import { CONSTRAINTS, MAX_CODE_BYTES, failed, resolveLanguage, unsupportedLanguage } from './verdict.js';
import type { CodeInput } from './engine.js';

const S = 'https://proofgate.dev/schemas/code';
/** Per-request deadline for parse + rules in the worker; 200 KB of Python takes well under a second. */
export const CODE_TASK_TIMEOUT_MS = 5_000;
/** Raw body cap: MAX_CODE_BYTES of code plus room for JSON escaping of quotes, backslashes and newlines. */
export const CODE_BODY_LIMIT = 512 * 1024;

/**
 * A worker that timed out or crashed produced no proof, so the answer fails closed: BLOCKED
 * `code_verifier.timeout` (a crash is reported under the same constraint with reason `crashed`;
 * both are "no verdict in time"). A full queue is overload: 503, like the other engines.
 */
export function failClosed(err: unknown, language: string): DiagnosticResult {
  const f = engineFailure(err, () => new HttpError(CodeProblems.engineUnavailable, 'the code engine is overloaded or starting'));
  const reason = f?.kind ?? 'failed';
  const message = reason === 'timeout' ? 'analysis exceeded its time limit; nothing was proven' : 'analysis did not complete; nothing was proven';
  return failed(language, CONSTRAINTS.timeout, message, { reason });
}

export function registerRoutes(app: App, engine: EngineHandle): void {
  app.route({
    method: 'POST',
    path: '/verify/code',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['verification'],
    bodyLimit: CODE_BODY_LIMIT,
    schema: { body: `${S}/verify.request.json`, response: `${S}/verify.response.json` },
    handler: async (ctx: RequestContext) => {
      const body = ctx.body as CodeInput;
      const bytes = Buffer.byteLength(body.code, 'utf8');
      if (bytes > MAX_CODE_BYTES) {
        throw new HttpError(CodeProblems.inputTooLarge, `code is ${bytes} bytes; the limit is ${MAX_CODE_BYTES}`, {
          constraintId: CONSTRAINTS.inputTooLarge,
          errors: [{ field: '/body/code', message: `longer than ${MAX_CODE_BYTES} UTF-8 bytes` }],
        });
      }
      const language = resolveLanguage(body.language);
      let verdict: DiagnosticResult;
      if (!language) verdict = unsupportedLanguage(body.language);
      else {
        try {
          verdict = reviveDiagnostic(await engine.run('verify', { code: body.code, language }, { timeoutMs: CODE_TASK_TIMEOUT_MS, signal: ctx.signal }));
        } catch (err) {
          verdict = failClosed(err, language);
        }
      }
      // Every verdict, BLOCKED ones included, is the answer to the request: 200; clients gate on admission.
      return { status: 200, verdict };
    },
  });
}
