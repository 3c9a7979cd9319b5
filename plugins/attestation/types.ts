import type { DiagnosticResult } from '../../core/verdict.js';
import type { AttestationResult as AttestationResultClaim } from '../../schemas/gen/index.js';

/** Outcome of one issuance (spec: AttestationResult). Never absent: check `is_issued` before using `token`. */
export type AttestationErrorCode = 'VERIFIED_WITHOUT_PROOF' | 'SIGNING_FAILURE' | 'CRYPTO_UNAVAILABLE';
export interface AttestationResult {
  status: 'ISSUED' | 'BLOCKED' | 'UNVERIFIABLE';
  token: string | null;
  error_code: AttestationErrorCode | null;
  error: string | null;
  is_issued: boolean;
  /** the token's jti when issued (proofgate addition: lets a route return `attestation_id`) */
  attestation_id: string | null;
  /** only with `deferWrite`: the record the caller must store before handing out the token */
  record?: AttestationRecord;
}

/**
 * Status of a stored attestation. UNVERIFIABLE (the spec's attestation status for "cannot be
 * checked"): neither revoked nor expired, but signed by a key this service no longer accepts
 * (an ephemeral key of an earlier process, a rotated-out persistent key), so its token no longer
 * verifies here and the service cannot vouch for it.
 */
export type StoredStatus = 'VALID' | 'EXPIRED' | 'REVOKED' | 'UNVERIFIABLE';

/** the `svc.result` claim: schemas/attestation/result.json, generated (schemas/gen/attestation.gen.ts) */
export type AttestedResult = AttestationResultClaim;

/** The nested `svc` claim: what was attested, bound to the evaluated input and the proof. */
export interface SvcClaim {
  version: '1.0';
  result: AttestedResult;
  query_hash: string;
  proof_hash: string;
}

export interface AttestationClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  svc: SvcClaim;
}

/** What the store keeps per issued attestation (collection `attestations`, key = jti). */
export interface AttestationRecord {
  id: string;
  org_id: string | null;
  iss: string;
  kid: string;
  sub: string;
  iat: number;
  exp: number;
  result: AttestedResult;
  query_hash: string;
  proof_hash: string;
  revoked_at: number | null;
  revoked_by: string | null;
  /**
   * RFC 7638 thumbprint of the signing key. The kid names a key slot (`<iss>#<key name>`), not key
   * material: an ephemeral key gets the same kid in every process. Absent on records of earlier
   * releases, whose key is therefore unknown (status UNVERIFIABLE).
   */
  jkt?: string;
}

export interface IssueOptions {
  /** engine that produced the diagnostic, e.g. `math` */
  engine: string;
  /** the evaluated input (for natural-language math: the translated expression); hashed into query_hash */
  query: unknown;
  /** organisation that owns the attestation (GET /attestation/{id} is scoped to it) */
  org_id?: string | null;
  /**
   * Hand the record write to the caller instead of committing it here: `issue` then returns the
   * record (`AttestationResult.record`) and the caller MUST make it durable before the token
   * leaves (the seal phase hands it to audit's record through the request slot `audit.with`, so
   * entry and record share one commit).
   */
  deferWrite?: boolean;
}

export type VerifyOutcome =
  | { ok: true; claims: AttestationClaims; header: { alg: 'ES256'; typ: string; kid: string }; status: 'VALID' }
  | { ok: false; reason: RejectReason };

export type RejectReason =
  | 'not_a_string'
  | 'oversized'
  | 'malformed'
  | 'unsupported_alg'
  | 'wrong_typ'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'malformed_claims'
  | 'untrusted_issuer'
  | 'issuer_key_mismatch'
  | 'sub_mismatch'
  | 'unknown_attestation'
  | 'revoked';

/** What other plugins get from `app.service('attestation')`. */
export interface AttestationService {
  readonly issuer: string;
  readonly kid: string;
  issue(diagnostic: DiagnosticResult, opts: IssueOptions): Promise<AttestationResult>;
  verify(token: unknown): Promise<VerifyOutcome>;
  /** stored status of an attestation visible to `orgId`, or null when unknown there */
  status(id: string, orgId: string): Promise<StoredStatus | null>;
  /**
   * Any organisation's attestation with its status, or null: only for a caller that holds its own
   * proof of the id (a document sealed by this service), never to answer a tenant's lookup.
   */
  lookup(id: string): Promise<{ status: StoredStatus; record: AttestationRecord } | null>;
}
