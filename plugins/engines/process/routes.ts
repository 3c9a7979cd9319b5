import type { App } from '../../../core/types.js';
import { HttpError, Problems } from '../../../core/errors.js';
import { evaluateProcess, requestProblem, type MilestoneRunner, type ProcessRequest } from './verifier.js';

const S = 'https://proofgate.dev/schemas/process';

export function registerRoutes(app: App, runMilestones: MilestoneRunner): void {
  app.route({
    method: 'POST',
    path: '/verify/process',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    async handler(ctx) {
      const req = ctx.body as ProcessRequest;
      // the schema cannot say "a milestone with no letters" cleanly; same rule as the service
      const problem = requestProblem(req as unknown as Record<string, unknown>);
      if (problem) throw validation(problem);
      const { fields, diagnostic } = await evaluateProcess(req, runMilestones, ctx.signal);
      return { status: 200, verdict: diagnostic, body: fields };
    },
  });
}

function validation(detail: string): HttpError {
  return new HttpError(Problems.validation, detail, { errors: [{ field: '/body/milestones', message: detail }] });
}

