import { defineProblem } from '../../core/errors.js';

/**
 * Problems of the attestation plugin. `invalidToken` is deliberately one body for every rejection
 * (expired, revoked, malformed, oversized, untrusted issuer, wrong alg/typ, bad signature): a
 * caller probing tokens learns nothing about why one failed. The reason goes to the operator log.
 * 400, not 401: the token is the object under test, not the caller's credential, so a client must
 * not mistake it for a failed API key and re-authenticate.
 */
export const AttestationProblems = {
  invalidToken: defineProblem('invalid_token', 400, 'Invalid token'),
  notFound: defineProblem('attestation_not_found', 404, 'Attestation not found'),
} as const;

export const INVALID_TOKEN_DETAIL = 'Invalid token';

/** Start-up failure of the signing key (wrong type or curve, unreadable PEM, unknown policy). */
export class AttestationKeyError extends Error {
  override readonly name = 'AttestationKeyError';
}
