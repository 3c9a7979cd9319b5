import { sha256Ref } from '../../core/canonical.js';

/**
 * `sub` binds the pair (evaluated input, proof): sha256Ref({query_hash, proof_hash}). Either half
 * alone could be shared by two attestations; the pair names exactly what was proven about what.
 */
export function subjectOf(queryHash: string, proofHash: string): string {
  return sha256Ref({ query_hash: queryHash, proof_hash: proofHash });
}
