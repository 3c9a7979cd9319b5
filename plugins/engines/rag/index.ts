import type { App, Plugin, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { blocked } from '../../../core/verdict.js';
import { parseRate, type Rational } from './engine.js';
import { C, RagProblems } from './errors.js';
import { ragVerdict, type RagRequest } from './verdict.js';

export { parseRate, checkDrm } from './engine.js';

const S = 'https://proofgate.dev/schemas/rag';
export const LIMITS = { chunks: 10_000, idChars: 1024 } as const;
/**
 * 10,000 chunks of ids and metadata up to ~100 bytes each fit. The whole body is parsed, validated
 * and hashed on the event loop, so the cap keeps each of those steps milliseconds (issue 12, item 8).
 */
export const BODY_LIMIT = 1024 * 1024;

const isId = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= LIMITS.idChars;

/** The route schema's rules as a function, for the service; returns the parsed threshold or why the input is unusable. */
function check(raw: Record<string, unknown>): { max: Rational } | { problem: string } {
  if (!isId(raw.target_document_id)) return { problem: 'target_document_id must be a non-empty string' };
  const chunks = raw.chunks;
  if (!Array.isArray(chunks) || chunks.length === 0 || chunks.length > LIMITS.chunks) return { problem: `chunks must hold 1 to ${LIMITS.chunks} chunks` };
  for (const c of chunks) {
    const meta = (c as { metadata?: unknown })?.metadata as Record<string, unknown> | undefined;
    if (!isId((c as { id?: unknown })?.id) || !meta || typeof meta !== 'object' || typeof meta.document_id !== 'string') {
      return { problem: 'every chunk needs a string id and metadata.document_id' };
    }
  }
  const rate = raw.max_drm_rate ?? '0';
  const max = typeof rate === 'string' ? parseRate(rate) : null;
  if (!max) return { problem: 'max_drm_rate must be a string fraction or decimal between 0 and 1, such as "1/10" or "0.1"' };
  return { max };
}

/** POST /verify/rag: exact document-retrieval-mismatch rate against a threshold. See docs/engines/rag.md. */
const ragPlugin: Plugin = {
  name: 'rag',
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-rag'],
  register(app: App) {
    app.route({
      method: 'POST',
      path: '/verify/rag',
      auth: 'apiKey',
      scope: 'verify:read',
      tags: ['verification'],
      bodyLimit: BODY_LIMIT,
      schema: { body: `${S}/request.json`, response: `${S}/response.json` },
      handler(ctx) {
        const req = ctx.body as RagRequest;
        const c = check(req as unknown as Record<string, unknown>);
        // the schema checks shapes; a threshold's value (0 ≤ p/q ≤ 1, q ≠ 0) is checked here
        if ('problem' in c) throw new HttpError(RagProblems.invalidRate, c.problem, { errors: [{ field: '/body/max_drm_rate', message: c.problem }] });
        const { fields, diagnostic } = ragVerdict(req, c.max);
        return { status: 200, verdict: diagnostic, body: fields };
      },
    });
    app.provide<Verifier>('verifier.rag', {
      async verify(input) {
        const c = check(input);
        if ('problem' in c) return blocked(`Invalid RAG request: ${c.problem}.`, C.invalidRequest, { is_valid: false });
        return ragVerdict(input as unknown as RagRequest, c.max).diagnostic;
      },
    });
  },
};

export default ragPlugin;
