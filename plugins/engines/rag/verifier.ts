import type { Verifier } from '../../../core/types.js';
import { blocked, verified, type DiagnosticResult } from '../../../core/verdict.js';
import type { RagRequest as GeneratedRagRequest } from '../../../schemas/gen/index.js';
import { checkDrm, parseRate, ENGINE_NAME, ENGINE_VERSION, type Rational } from './engine.js';
import { C } from './errors.js';

/** POST /verify/rag's body: schemas/rag/request.json, generated (schemas/gen/rag.gen.ts) (its chunks fit engine.ts's Chunk) */
export type RagRequest = GeneratedRagRequest;

/**
 * Counting metadata is a proof (decisions §1): the verdict is VERIFIED either way and
 * `is_valid` says whether the retrieval stayed within the allowed mismatch rate. The evidence
 * binds what decided it: the target, each chunk's id and document id, the exact threshold.
 */
export function ragVerdict(req: RagRequest, max: Rational): { fields: Record<string, unknown>; diagnostic: DiagnosticResult } {
  const r = checkDrm(req.target_document_id, req.chunks, max);
  const fields = {
    verified: r.verified,
    risk: r.risk,
    drm_rate: r.drm_rate,
    chunks_checked: r.chunks_checked,
    mismatched_count: r.mismatched_count,
  };
  const msg = r.verified
    ? `${r.mismatched_count} of ${r.chunks_checked} chunks come from another document (rate ${r.drm_rate_exact} ≤ ${r.max_drm_rate_exact}).`
    : `Document retrieval mismatch: ${r.mismatched_count} of ${r.chunks_checked} chunks come from another document (rate ${r.drm_rate_exact} > ${r.max_drm_rate_exact}).`;
  const devFields: Record<string, unknown> = {
    is_valid: r.verified,
    drm_rate_exact: r.drm_rate_exact,
    max_drm_rate_exact: r.max_drm_rate_exact,
    mismatched_chunk_ids: r.mismatched_chunk_ids,
    engine_version: ENGINE_VERSION,
  };
  if (!r.verified) devFields.constraint_id = C.mismatch;
  const diagnostic = verified(msg, devFields, {
    engine: ENGINE_NAME,
    engine_version: ENGINE_VERSION,
    input: { target_document_id: req.target_document_id, chunks: req.chunks.map((c) => ({ id: c.id, document_id: c.metadata.document_id })) },
    parameters: { max_drm_rate: r.max_drm_rate_exact },
    result: { verified: r.verified, mismatched_count: r.mismatched_count, chunks_checked: r.chunks_checked },
  });
  return { fields, diagnostic };
}

export const LIMITS = { chunks: 10_000, idChars: 1024 } as const;
/**
 * 10,000 chunks of ids and metadata up to ~100 bytes each fit. The whole body is parsed, validated
 * and hashed on the event loop, so the cap keeps each of those steps milliseconds (issue 12, item 8).
 */
export const BODY_LIMIT = 1024 * 1024;

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= LIMITS.idChars;

/** The route schema's rules as a function, for the service; returns the parsed threshold or why the input is unusable. */
export function check(raw: Record<string, unknown>): { max: Rational } | { problem: string; field: string } {
  if (!isId(raw.target_document_id)) return { problem: 'target_document_id must be a non-empty string', field: '/body/target_document_id' };
  const chunks = raw.chunks;
  if (!Array.isArray(chunks) || chunks.length === 0 || chunks.length > LIMITS.chunks) return { problem: `chunks must hold 1 to ${LIMITS.chunks} chunks`, field: '/body/chunks' };
  // a chunk listed twice is counted twice: one retrieved chunk, or two that claim different
  // documents under one id, would weigh as two in the rate
  const seen = new Set<string>();
  for (const [i, c] of chunks.entries()) {
    const meta = (c as { metadata?: unknown })?.metadata as Record<string, unknown> | undefined;
    const id = (c as { id?: unknown })?.id;
    if (!isId(id) || !meta || typeof meta !== 'object' || typeof meta.document_id !== 'string') {
      return { problem: 'every chunk needs a string id and metadata.document_id', field: `/body/chunks/${i}` };
    }
    if (seen.has(id)) return { problem: `chunk id ${JSON.stringify(id.slice(0, 64))} is listed more than once`, field: `/body/chunks/${i}/id` };
    seen.add(id);
  }
  const rate = raw.max_drm_rate ?? '0';
  const max = typeof rate === 'string' ? parseRate(rate) : null;
  if (!max) return { problem: 'max_drm_rate must be a string fraction or decimal between 0 and 1, such as "1/10" or "0.1"', field: '/body/max_drm_rate' };
  return { max };
}

/** `verifier.rag` for composite routes: an unusable input is a BLOCKED verdict for that item, not a 400. */
export const ragVerifier: Verifier = {
  async verify(input) {
    const c = check(input);
    if ('problem' in c) return blocked(`Invalid RAG request: ${c.problem}.`, C.invalidRequest, { is_valid: false });
    return ragVerdict(input as unknown as RagRequest, c.max).diagnostic;
  },
};
