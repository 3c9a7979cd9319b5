import type { App, EngineHandle, RequestContext, Verifier } from '../../../core/types.js';
import { describeFieldErrors, HttpError } from '../../../core/errors.js';
import { engineFailure } from '../../../core/kit.js';
import { reviveDiagnostic, type DiagnosticResult } from '../../../core/verdict.js';
import { CodeProblems } from './errors.js';
import { CONSTRAINTS, MAX_CODE_BYTES, failed, resolveLanguage, unsupportedLanguage } from './verdict.js';
import type { CodeInput } from './engine.js';

const S = 'https://proofgate.dev/schemas/code';
/** the /verify/code body schema: the route and `verifier.code` refuse exactly the same inputs */
export const CODE_REQUEST_SCHEMA = `${S}/verify.request.json`;
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

/** One verification: the language resolved, parse + rules in the worker pool, a failure closed. */
export async function runCode(engine: EngineHandle, code: string, language: unknown, signal?: AbortSignal): Promise<DiagnosticResult> {
  const resolved = resolveLanguage(language);
  if (!resolved) return unsupportedLanguage(language);
  try {
    return reviveDiagnostic(await engine.run('verify', { code, language: resolved }, { timeoutMs: CODE_TASK_TIMEOUT_MS, signal }));
  } catch (err) {
    return failClosed(err, resolved);
  }
}

const tooLarge = (bytes: number) => `code is ${bytes} bytes; the limit is ${MAX_CODE_BYTES}`;

/**
 * `verifier.code` for composite routes (batch, consensus, agents): the input is checked against the
 * route's own body schema and byte cap, but an unusable input becomes a BLOCKED verdict for that
 * item instead of a 400 (or 413) for the whole request.
 */
export function codeVerifier(app: App, engine: EngineHandle): Verifier {
  return {
    async verify(raw, opts = {}) {
      // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
      const body = { ...raw };
      const shown = typeof body.language === 'string' ? body.language.slice(0, 64) : 'python';
      const errors = app.validate(CODE_REQUEST_SCHEMA, body);
      if (errors.length) return failed(shown, CONSTRAINTS.invalidRequest, `Invalid code request: ${describeFieldErrors(errors)}.`, { errors });
      const { code, language } = body as unknown as CodeInput;
      const bytes = Buffer.byteLength(code, 'utf8');
      if (bytes > MAX_CODE_BYTES) return failed(shown, CONSTRAINTS.inputTooLarge, tooLarge(bytes), { bytes, max_bytes: MAX_CODE_BYTES });
      return runCode(engine, code, language, opts.signal);
    },
  };
}

export function registerRoutes(app: App, engine: EngineHandle): void {
  app.route({
    method: 'POST',
    path: '/verify/code',
    auth: 'apiKey',
    scope: 'verify:read',
    tags: ['verification'],
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
