import { defineProblem } from '../../../core/errors.js';

export const C = {
  mismatch: 'rag_verifier.document_retrieval_mismatch',
  invalidRequest: 'rag_verifier.invalid_request',
} as const;

export const RagProblems = {
  invalidRate: defineProblem('rag_invalid_max_drm_rate', 400, 'Invalid max_drm_rate'),
  invalidChunks: defineProblem('rag_invalid_chunks', 400, 'Invalid chunks'),
} as const;
