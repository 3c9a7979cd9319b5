import { sha256Ref } from '../../core/json/canonical.js';

/**
 * `sub` binds the pair (evaluated input, proof): sha256Ref({query_hash, proof_hash}). Either half
 * alone could be shared by two attestations; the pair names exactly what was proven about what.
 */
export function subjectOf(queryHash: string, proofHash: string): string {
  return sha256Ref({ query_hash: queryHash, proof_hash: proofHash });
}

interface Bound {
  sub: string;
  query_hash: string;
  proof_hash: string;
}

/**
 * Records the issuer built and the record codec has not checked yet, with the hashes their `sub`
 * was computed from; each is checked once, and the map is emptied when full (records issued but
 * never stored). A Map, not a WeakMap: V8's ephemeron tables cost more than the hash they save.
 */
const issued = new Map<Bound, [string, string, string]>();
const ISSUED_MAX = 4096;

/** Remembers that `r.sub` is subjectOf(r.query_hash, r.proof_hash), as the issuer just computed it. */
export function markSubject(r: Bound): void {
  if (issued.size >= ISSUED_MAX) issued.clear();
  issued.set(r, [r.sub, r.query_hash, r.proof_hash]);
}

/**
 * Whether `r.sub` is the subject of its own hashes: the record codec's question, asked right after
 * issuance, answered without hashing again while none of the three changed since markSubject.
 */
export function hasOwnSubject(r: Bound): boolean {
  const m = issued.get(r);
  if (m !== undefined) {
    issued.delete(r);
    if (m[0] === r.sub && m[1] === r.query_hash && m[2] === r.proof_hash) return true;
  }
  return r.sub === subjectOf(r.query_hash, r.proof_hash);
}
