import { blocked, unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import type { UntrustedReply } from '../../providers/index.js';
import type { NaturalLanguageResponse } from '../../../schemas/gen/index.js';
import { NL } from './errors.js';

/**
 * The endpoint's body (spec: POST /verify/natural_language) and its trust_boundary: the parts of
 * schemas/natural-language/response.json, generated (schemas/gen/natural-language.gen.ts). The
 * top-level status is the spec's own enum; the unified verdict rides under `diagnostic` (decisions §2).
 */
export type NlStatus = NaturalLanguageResponse['status'];

/** `translation` of a reply: the parsed translation, or — when the model's reply was refused — what it said, flagged untrusted */
export type NlTranslationField = NaturalLanguageResponse['translation'];
export type NlTranslationOut = Exclude<NlTranslationField, null | UntrustedReply>;

const parsedOf = (t: NlTranslationField): NlTranslationOut | null => (t && !('untrusted' in t) ? t : null);

/** calculated_value_exact is the engine's exact form (`"1/3"`, 50 digits for irrationals); `calculated_value` is its double */
export type NlVerification = NonNullable<NaturalLanguageResponse['verification']>;
/** what the math engine did with the translation: checked a claim (held / did not) or only computed */
export type InnerStatus = NlVerification['inner_status'];

export type TrustBoundary = NaturalLanguageResponse['trust_boundary'];

/**
 * The verifier's reply body, before the route serves it: `latency_ms` is added by the route (the
 * verifier does not time itself), and `diagnostic` is the kernel's DiagnosticResult (frozen, built
 * only by core/verdict.ts), which the kernel renders into the schema's `diagnostic` object.
 */
export type NlBody = Omit<NaturalLanguageResponse, 'latency_ms' | 'diagnostic'> & { diagnostic: DiagnosticResult };

export interface NlReply {
  httpStatus: number;
  body: NlBody;
}

export function trustBoundary(status: NlStatus, provider: string, v: NlVerification | null, attestationError?: string): TrustBoundary {
  const inner = v?.inner_status;
  const tb: TrustBoundary = {
    query_interpretation_source: 'llm_translation',
    query_semantics_verified: false,
    verification_scope: 'translated_expression_only',
    // spec: true when the inner engine status was VERIFIED or CORRECTION_NEEDED (a claim was checked exactly)
    deterministic_expression_evaluation: inner === 'VERIFIED' || inner === 'CORRECTION_NEEDED',
    formal_proof: false,
    translation_claim_self_consistent: inner === 'VERIFIED',
    provider_used: provider,
    overall_status: status,
  };
  if (attestationError !== undefined) tb.attestation_error = attestationError;
  return tb;
}

export function advisory(provider: string, field: NlTranslationField): Record<string, unknown> {
  const t = parsedOf(field);
  return {
    name: 'llm_translation',
    advisory_only: true,
    constraint_id: NL.llmTranslation,
    details: { provider, ...(t ? { confidence: t.confidence, expression: t.expression } : {}) },
  };
}

/** A reply that reached no evaluation: ERROR / NOT_MATH_QUERY / BLOCKED with a BLOCKED diagnostic. */
export function failed(
  httpStatus: number,
  status: Exclude<NlStatus, 'INCONCLUSIVE'>,
  query: string,
  provider: string,
  constraintId: string,
  error: string,
  extra: { translation?: NlTranslationField; verification?: NlVerification | null; errorCode?: string; attestationError?: string; fields?: Record<string, unknown> } = {},
): NlReply {
  const translation = extra.translation ?? null;
  const verification = extra.verification ?? null;
  const diagnostic = blocked(error, constraintId, {
    is_valid: false,
    error,
    query_semantics_verified: false,
    ...(parsedOf(translation)?.expression ? { translated_expression: parsedOf(translation)?.expression } : {}),
    ...(extra.fields ?? {}),
    advisory_checks: [advisory(provider, translation)],
  });
  const body: NlBody = {
    status,
    user_query: query,
    translation,
    verification,
    trust_boundary: trustBoundary(status, provider, verification, extra.attestationError),
    final_answer: null,
    provider_used: provider,
    diagnostic,
    error,
  };
  if (extra.errorCode) body.error_code = extra.errorCode;
  return { httpStatus, body };
}

/** Evaluation succeeded: INCONCLUSIVE, with the unified verdict UNVERIFIABLE (the translation is not proven). */
export function inconclusive(
  query: string,
  provider: string,
  translation: NlTranslationOut,
  v: NlVerification,
  inner: DiagnosticResult,
  attestation?: { token: string; id: string | null },
): NlReply {
  const checked = v.inner_status === 'VERIFIED' || v.inner_status === 'CORRECTION_NEEDED';
  const msg = checked
    ? `The translated expression evaluates to ${v.calculated_value_exact}; the claimed answer ${v.is_correct ? 'matches' : 'does not match'} it. The translation itself is not verified.`
    : `The translated expression evaluates to ${v.calculated_value_exact}. The translation itself is not verified.`;
  const diagnostic = unverifiable(msg, {
    // true only when the translated claim held under exact evaluation; the status says nothing about the user's words is proven
    is_valid: v.is_correct === true,
    query_semantics_verified: false,
    translated_expression: translation.expression,
    claimed_answer: translation.claimed_answer,
    calculated_value: v.calculated_value_exact,
    is_correct: v.is_correct,
    inner_status: v.inner_status,
    inner_verdict: { status: inner.status, proof_ref: inner.proof_ref },
    ...(attestation?.id ? { attestation_id: attestation.id } : {}),
    advisory_checks: [advisory(provider, translation)],
  });
  const body: NlBody = {
    status: 'INCONCLUSIVE',
    user_query: query,
    translation,
    verification: v,
    trust_boundary: trustBoundary('INCONCLUSIVE', provider, v),
    final_answer: v.calculated_value,
    provider_used: provider,
    diagnostic,
  };
  if (attestation) {
    body.attestation = attestation.token;
    if (attestation.id) body.attestation_id = attestation.id;
  }
  return { httpStatus: 200, body };
}
