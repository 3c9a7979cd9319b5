import type { Logger } from 'pino';
import { sha256Ref } from '../../core/json/canonical.js';
import { blocked, diagnosticProblem, reviveDiagnostic, unverifiable, type DiagnosticResult, type Status } from '../../core/verdict.js';
import { claimHolds } from './issue.js';
import type { AttestationService, VerifyOutcome } from './types.js';

export const TRUST_GATE = {
  mandatoryMissing: 'trust_gate.mandatory_attestation_missing',
  invalidToken: 'trust_gate.invalid_attestation_token',
  statusMismatch: 'trust_gate.claims_status_mismatch',
  queryMismatch: 'trust_gate.claims_query_mismatch',
  proofMismatch: 'trust_gate.claims_proof_mismatch',
  snapshotFailed: 'trust_gate.diagnostic_snapshot_failed',
} as const;

export const BATCH_SIGNING_ERROR = 'api.attestation.signing_error';

export interface TrustGateOptions {
  /** the attestation token presented with the diagnostic, if any */
  token?: string | null;
  /** true: a VERIFIED result without a token is BLOCKED; false: advisory mode, it passes */
  required: boolean;
  /** what the token's claims must say */
  expected: { query_hash: string | null; proof_ref: string | null; status: Status };
  /** token verification (the attestation service's `verify`) */
  verify: (token: unknown) => Promise<VerifyOutcome>;
  log?: Logger;
}

export interface TrustGateTrace {
  constraint_id: string;
  reason: string;
  policy: 'required' | 'advisory';
}

function block(opts: TrustGateOptions, constraintId: string, reason: string, message: string): DiagnosticResult {
  const trace: TrustGateTrace = { constraint_id: constraintId, reason, policy: opts.required ? 'required' : 'advisory' };
  opts.log?.warn({ event: 'trust_gate.blocked', ...trace }, 'trust gate blocked a result');
  // nothing of the original verdict survives a block: a legacy client reading is_valid must not see `true`
  return blocked(message, constraintId, { is_valid: false });
}

/**
 * The one trust gate (spec: States and transitions). Every route that needs attestation-backed
 * results calls this and nothing else. It never mutates its input: the result is a detached copy
 * (structuredClone), so later steps cannot flip a gated verdict through a shared reference.
 * Only VERIFIED results are checked; UNVERIFIABLE and BLOCKED pass through unchanged.
 */
export async function trustGate(diagnostic: DiagnosticResult, opts: TrustGateOptions): Promise<DiagnosticResult> {
  let copy: DiagnosticResult;
  try {
    copy = reviveDiagnostic(structuredClone(diagnostic));
  } catch (err) {
    const reason = err instanceof TypeError && diagnosticProblem(diagnostic) ? `malformed: ${diagnosticProblem(diagnostic)}` : 'developer_fields cannot be cloned';
    return block(opts, TRUST_GATE.snapshotFailed, reason, 'The result could not be snapshotted');
  }
  if (copy.status !== 'VERIFIED') return copy;

  const token = opts.token;
  if (token === undefined || token === null || token === '') {
    if (opts.required) return block(opts, TRUST_GATE.mandatoryMissing, 'no attestation token', 'A required attestation is missing');
    return copy; // advisory mode
  }
  const v = await opts.verify(token);
  if (!v.ok) return block(opts, TRUST_GATE.invalidToken, v.reason, 'Invalid token');
  const svc = v.claims.svc;
  if (svc.result.status !== opts.expected.status || svc.result.status !== copy.status || svc.result.verified !== claimHolds(copy)) {
    return block(opts, TRUST_GATE.statusMismatch, 'attested status differs', 'The attestation does not match the result status');
  }
  if (opts.expected.query_hash === null || svc.query_hash !== opts.expected.query_hash) {
    return block(opts, TRUST_GATE.queryMismatch, 'attested query differs', 'The attestation does not match the query');
  }
  if (svc.proof_hash !== opts.expected.proof_ref || svc.proof_hash !== copy.proof_ref) {
    return block(opts, TRUST_GATE.proofMismatch, 'attested proof differs', 'The attestation does not match the proof');
  }
  return copy;
}

export interface GatedBatchItem {
  diagnostic: DiagnosticResult;
  attestation: string | null;
  attestation_id: string | null;
}

/**
 * Batch math items (spec: math items pass the trust gate with attestation required). A VERIFIED
 * item is attested and then gated; when issuance fails for any reason the item becomes
 * UNVERIFIABLE with constraint_id `api.attestation.signing_error` (transitions table), not BLOCKED.
 */
export async function gateBatchMathItem(
  service: Pick<AttestationService, 'issue' | 'verify'>,
  diagnostic: DiagnosticResult,
  opts: { query: unknown; engine?: string; org_id?: string | null; log?: Logger },
): Promise<GatedBatchItem> {
  if (diagnostic?.status !== 'VERIFIED') {
    const d = await trustGate(diagnostic, { required: true, expected: { query_hash: null, proof_ref: null, status: diagnostic?.status }, verify: service.verify, log: opts.log });
    return { diagnostic: d, attestation: null, attestation_id: null };
  }
  const att = await service.issue(diagnostic, { engine: opts.engine ?? 'math', query: opts.query, org_id: opts.org_id });
  if (!att.is_issued) {
    opts.log?.warn({ event: 'trust_gate.blocked', constraint_id: BATCH_SIGNING_ERROR, reason: att.error_code, policy: 'required' }, 'batch item attestation failed');
    return {
      diagnostic: unverifiable('The result could not be attested', { is_valid: false, constraint_id: BATCH_SIGNING_ERROR, attestation_error: att.error_code }),
      attestation: null,
      attestation_id: null,
    };
  }
  let queryHash: string | null;
  try {
    queryHash = sha256Ref(opts.query);
  } catch {
    queryHash = null;
  }
  const d = await trustGate(diagnostic, {
    token: att.token,
    required: true,
    expected: { query_hash: queryHash, proof_ref: diagnostic.proof_ref, status: 'VERIFIED' },
    verify: service.verify,
    log: opts.log,
  });
  const ok = d.status === 'VERIFIED';
  return { diagnostic: d, attestation: ok ? att.token : null, attestation_id: ok ? att.attestation_id : null };
}
