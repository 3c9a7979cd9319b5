import type { App, MultipartBody } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { StatsProblems } from './errors.js';
import { csvProblem, LIMITS, queryRefused, runPrepared, type Prepare } from './verifier.js';
import type { Sandbox } from './sandbox.js';

const S = 'https://proofgate.dev/schemas/stats';
/** room for the multipart boundary and the query field around the file */
const ENVELOPE_BYTES = 64 * 1024;

export function registerRoutes(app: App, o: { prepare: Prepare; sandbox: Sandbox; columnCap: number }): void {
  const { prepare, sandbox, columnCap } = o;
  app.route({
    method: 'POST',
    path: '/verify/stats',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    bodyType: 'multipart',
    bodyLimit: LIMITS.fileBytes + ENVELOPE_BYTES,
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    async handler(ctx) {
      const body = ctx.body as MultipartBody;
      const files = body.files.filter((f) => f.field === 'file');
      if (files.length !== 1) throw new HttpError(StatsProblems.missingFile, 'send exactly one CSV file in the multipart field "file"');
      if (files[0].data.length > LIMITS.fileBytes) throw new HttpError(StatsProblems.tooManyCells, `the CSV exceeds ${LIMITS.fileBytes} bytes`);
      const p = await prepare(files[0].data, body.fields.query, ctx.signal);
      if (!p.ok && p.kind !== 'query') throw csvProblem(p, columnCap);
      const verdict = p.ok ? await runPrepared(sandbox, p, ctx.signal) : queryRefused(p.message);
      return { status: 200, verdict };
    },
  });
}
