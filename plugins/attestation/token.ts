import { SHA256_REF } from '../../core/json/canonical.js';
import type { AttestationClaims } from './types.js';

/**
 * What an attestation token is, apart from the service that issues it: the offline verifier
 * (offline.ts, reached by `proofgate/client` and the CLI) reads this module and nothing heavier.
 */
export const TOKEN_TYPE = 'svc-attestation+jwt';
export const SVC_VERSION = '1.0';
/** Tokens longer than this are refused before any parsing (ours are well under 1 KiB). */
export const MAX_TOKEN_BYTES = 8192;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isRef = (v: unknown): v is string => typeof v === 'string' && SHA256_REF.test(v);

export function claimsShapeOk(p: Record<string, unknown>): p is AttestationClaims & Record<string, unknown> {
  const svc = p.svc as Record<string, unknown> | undefined;
  const result = svc?.result as Record<string, unknown> | undefined;
  return (
    typeof p.iss === 'string' &&
    isRef(p.sub) &&
    isInt(p.iat) &&
    isInt(p.exp) &&
    typeof p.jti === 'string' &&
    p.jti.length > 0 &&
    !!svc &&
    typeof svc === 'object' &&
    svc.version === SVC_VERSION &&
    isRef(svc.query_hash) &&
    isRef(svc.proof_hash) &&
    !!result &&
    typeof result === 'object' &&
    ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'].includes(result.status as string) &&
    typeof result.verified === 'boolean' &&
    typeof result.engine === 'string' &&
    typeof result.confidence === 'number'
  );
}

