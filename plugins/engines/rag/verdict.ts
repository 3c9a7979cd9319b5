import { verified, type DiagnosticResult } from '../../../core/verdict.js';
import { checkDrm, ENGINE_NAME, ENGINE_VERSION, type Chunk, type Rational } from './engine.js';
import { C } from './errors.js';

export interface RagRequest {
  target_document_id: string;
  chunks: Chunk[];
  max_drm_rate?: string;
}

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
