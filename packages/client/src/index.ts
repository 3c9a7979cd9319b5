import { verifyVerdict, type VerifyOptions, type VerifyResult } from '../../../plugins/a2a/verify.js';
import { verifyAttestationOffline, type OfflineVerifyOptions, type OfflineVerifyResult } from '../../../plugins/attestation/offline.js';
import { ProofgateClient } from './client.gen.js';
import type { VerificationContextDocument } from './types.gen.js';

/**
 * `@proofgate/client` (also `proofgate/client` in the sidecar's package): the typed client of the
 * proofgate API, plus what a caller does with a verdict afterwards — check an A2A verdict JWT or an
 * attestation token (against the service's JWKS, fetched or given offline) and turn a verdict into a
 * Verification Context document. It loads undici, jose and canonicalize and no engine
 * (test/sidecar/client-light.test.ts and client-package.test.ts hold it so).
 */
export { ProofgateClient } from './client.gen.js';
export { ClientBase, InsecureTransportError, ProofgateError, ResponseTooLargeError, isLoopbackHost, type ClientOptions, type CallOptions } from './base.js';
export type * from './types.gen.js';
export type { VerifyOptions, VerifyResult, OfflineVerifyOptions, OfflineVerifyResult };

/**
 * Checks an attestation JWT (the `attestation` of a VERIFIED reply) offline: ES256 signature
 * against `jwks` or `jwksUrl` (`${baseUrl}/.well-known/jwks.json`), typ, expiry, claim layout, kid
 * of the issuer, and that `sub` binds the query and proof hashes (`query` also binds what was
 * evaluated). `verified` is true only for a token attesting VERIFIED. Revocation is not visible
 * offline: `client.postAttestationVerify({jwt})` asks the service, which also reads it.
 */
export function verifyAttestation(token: string, o: OfflineVerifyOptions): Promise<OfflineVerifyResult> {
  return verifyAttestationOffline(token, o);
}

/**
 * Checks an A2A verdict JWT (`X-Proofgate-Verdict` or `/a2a/intercept`'s `verdict_jwt`): ES256
 * signature against `jwks` (offline) or `jwksUrl` (e.g. `${baseUrl}/.well-known/jwks.json`), typ,
 * expiry, and that `sub` is the RFC 8785 SHA-256 of the payload the receiver actually got.
 */
export function verifyA2AVerdict(token: string, o: VerifyOptions): Promise<VerifyResult> {
  return verifyVerdict(token, o);
}

/** A verdict as the engines return it (DiagnosticResult fields at the top level, or under `diagnostic`). */
export interface VerdictLike {
  status?: unknown;
  diagnostic?: unknown;
  /** the attestation JWT the service adds to a VERIFIED verdict */
  attestation?: string | null;
  [k: string]: unknown;
}

/**
 * Converts a verdict into a Verification Context v1.0 document. The service does the conversion
 * (POST /verification-context/from-diagnostic), because only it can apply the trust gate: a
 * VERIFIED verdict without a valid attestation token becomes UNVERIFIABLE, never VERIFIED.
 */
export async function toVerificationContext(
  client: ProofgateClient,
  verdict: VerdictLike,
  o: { query?: unknown; verifier?: string; attestationToken?: string } = {},
): Promise<VerificationContextDocument> {
  const diagnostic = verdict.diagnostic && typeof verdict.diagnostic === 'object' ? verdict.diagnostic : verdict;
  const token = o.attestationToken ?? (typeof verdict.attestation === 'string' ? verdict.attestation : undefined);
  return client.postVerificationContextFromDiagnostic({
    diagnostic,
    ...(token ? { attestation_token: token } : {}),
    ...(o.query !== undefined ? { query: o.query } : {}),
    ...(o.verifier ? { verifier: o.verifier } : {}),
  });
}
