import type { App, Plugin, Verifier } from '../../../core/types.js';
import { HttpError, Problems } from '../../../core/errors.js';
import { blocked } from '../../../core/verdict.js';
import { C } from './errors.js';
import { evaluateProcess, type ProcessRequest } from './verdict.js';

export { checkIrac, checkMilestones, normalise } from './engine.js';

const S = 'https://proofgate.dev/schemas/process';
export const LIMITS = { traceChars: 200_000, milestones: 100, milestoneChars: 500 } as const;

/** The route schema's rules as a function, for the service (an unusable input is a BLOCKED verdict, not a 400). */
function requestProblem(raw: Record<string, unknown>): string | null {
  const { trace, mode, milestones } = raw;
  if (typeof trace !== 'string' || !trace || trace.length > LIMITS.traceChars) return `trace must be a non-empty string of at most ${LIMITS.traceChars} characters`;
  if (mode !== undefined && mode !== 'irac' && mode !== 'milestones') return "mode must be 'irac' or 'milestones'";
  if (mode === 'milestones') {
    if (!Array.isArray(milestones) || milestones.length === 0 || milestones.length > LIMITS.milestones) return 'milestones mode needs 1 to 100 milestones';
    if (!milestones.every((m) => typeof m === 'string' && /[\p{L}\p{N}]/u.test(m) && m.length <= LIMITS.milestoneChars)) {
      return 'every milestone must be a string with at least one letter or digit';
    }
  }
  return null;
}

/**
 * POST /verify/process: reasoning-trace structure (IRAC markers or milestone phrases). Matching is
 * linear-time over at most 200k characters, so it runs on the request thread: a worker hop would
 * cost more than the scan. See docs/engines/process.md.
 */
const processPlugin: Plugin = {
  name: 'process',
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-process'],
  register(app: App) {
    app.route({
      method: 'POST',
      path: '/verify/process',
      auth: 'apiKey',
      scope: 'verify:read',
      tags: ['verification'],
      schema: { body: `${S}/request.json`, response: `${S}/response.json` },
      handler(ctx) {
        const req = ctx.body as ProcessRequest;
        // the schema cannot say "a milestone with no letters" cleanly; same rule as the service
        const problem = requestProblem(req as unknown as Record<string, unknown>);
        if (problem) throw validation(problem);
        const { fields, diagnostic } = evaluateProcess(req);
        return { status: 200, verdict: diagnostic, body: fields };
      },
    });
    app.provide<Verifier>('verifier.process', {
      async verify(input) {
        const problem = requestProblem(input);
        if (problem) return blocked(`Invalid process request: ${problem}.`, C.invalidRequest);
        return evaluateProcess(input as unknown as ProcessRequest).diagnostic;
      },
    });
  },
};

function validation(detail: string): HttpError {
  return new HttpError(Problems.validation, detail, { errors: [{ field: '/body/milestones', message: detail }] });
}

export default processPlugin;
