import type { App } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { RagProblems } from './errors.js';
import { BODY_LIMIT, check, ragVerdict, type RagRequest } from './verifier.js';

const S = 'https://proofgate.dev/schemas/rag';

export function registerRoutes(app: App): void {
  app.route({
    method: 'POST',
    path: '/verify/rag',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyLimit: BODY_LIMIT,
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    handler(ctx) {
      const req = ctx.body as RagRequest;
      const c = check(req as unknown as Record<string, unknown>);
      // the schema checks shapes; a threshold's value (0 ≤ p/q ≤ 1, q ≠ 0) is checked here
      if ('problem' in c) {
        const def = c.field === '/body/max_drm_rate' ? RagProblems.invalidRate : RagProblems.invalidChunks;
        throw new HttpError(def, c.problem, { errors: [{ field: c.field, message: c.problem }] });
      }
      const { fields, diagnostic } = ragVerdict(req, c.max);
      return { status: 200, verdict: diagnostic, body: fields };
    },
  });
}
