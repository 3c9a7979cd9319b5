import { HttpError } from '../../../core/errors.js';
import type { Verifier } from '../../../core/types.js';
import type { DiagnosticResult } from '../../../core/verdict.js';
import { untrustedReply, type LlmTranslator, type MathTranslation } from '../../providers/index.js';
import { failed, inconclusive, type InnerStatus, type NlReply, type NlTranslationOut, type NlVerification } from './body.js';
import { NL, NlProblems, POLICY_CONSTRAINTS } from './errors.js';
import { normalizeMathInput } from '../math/index.js';

/** What issuance needs (plugins/attestation `BoundAttestationService.issue`); never throws, check is_issued. */
export interface Issuer {
  issue(
    d: DiagnosticResult,
    opts: { engine: string; query: unknown; org_id?: string | null },
  ): Promise<{ is_issued: boolean; token: string | null; error_code: string | null; attestation_id?: string | null }>;
}

export interface NlDeps {
  translator(): LlmTranslator | undefined;
  math(): Verifier | undefined;
  attestation(): Issuer | undefined;
}

export interface NlRequest {
  query: string;
  provider?: string;
}

const PROVIDER_NONE = 'none';
const ENGINE_FAILURES: ReadonlySet<string> = new Set(['math_verifier.timeout', 'math_verifier.engine_error']);

const toNumber = (v: unknown): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
};

/** The evaluated part of the math engine's verdict, or null when it computed no number. */
function verificationOf(inner: DiagnosticResult, claimed: boolean): NlVerification | null {
  const f = inner.developer_fields;
  if (claimed && inner.status === 'VERIFIED' && typeof f.is_correct === 'boolean') {
    const exact = String(f.calculated_value);
    return {
      calculated_value: toNumber(exact),
      calculated_value_exact: exact,
      is_correct: f.is_correct,
      diff: toNumber(f.difference),
      inner_status: f.is_correct ? 'VERIFIED' : 'CORRECTION_NEEDED',
    };
  }
  if (!claimed && inner.status === 'UNVERIFIABLE' && f.is_symbolic === false && f.is_complex !== true && f.value !== null && f.value !== undefined) {
    const exact = typeof f.value_exact === 'string' ? f.value_exact : String(f.value);
    const n = typeof f.value === 'number' ? f.value : toNumber(f.value_float);
    if (n === null) return null;
    return { calculated_value: n, calculated_value_exact: exact, is_correct: null, diff: null, inner_status: 'EVALUATED' };
  }
  return null;
}

/**
 * POST /verify/natural_language as a function: translate (untrusted) → evaluate with `verifier.math`
 * (exact, real domain; the claimed answer as expected_value) → when the math engine proved or refuted
 * the claim, issue the attestation bound to the translated expression before anything surfaces.
 */
export function createNlVerifier(deps: NlDeps) {
  return {
    async verify(req: NlRequest, opts: { signal?: AbortSignal; orgId?: string | null } = {}): Promise<NlReply> {
      const query = req.query;
      const translator = deps.translator();
      if (!translator) return failed(503, 'ERROR', query, req.provider ?? PROVIDER_NONE, NL.translatorUnavailable, 'no language-model translator is configured');
      let t: MathTranslation;
      try {
        t = await translator.translate({ target: 'math', text: query, provider: req.provider, signal: opts.signal });
      } catch (err) {
        const e = err as { name?: string; code?: string; message?: string; provider?: string; modelOutput?: string };
        if (e?.name !== 'ProviderError') throw err;
        const provider = e.provider ?? req.provider ?? translator.defaultProvider;
        if (e.code === 'unknown_provider') throw new HttpError(NlProblems.unknownProvider, e.message, { extensions: { available_providers: translator.available() } });
        if (e.code === 'provider_not_configured') throw new HttpError(NlProblems.providerNotConfigured, e.message, { extensions: { available_providers: translator.available() } });
        if (e.code === 'cancelled') throw err;
        const timeout = e.code === 'timeout';
        const constraint = timeout ? NL.translationTimeout : e.code === 'cannot_translate' ? NL.translationInvalid : NL.translationFailed;
        // what the model said, when it said something: data for the caller to inspect, never evaluated
        const said = typeof e.modelOutput === 'string' ? untrustedReply(e.modelOutput) : null;
        return failed(e.code === 'cannot_translate' ? 422 : 503, 'ERROR', query, provider, constraint, `translation failed: ${e.message}`, { errorCode: e.code, translation: said });
      }
      const provider = t.provider;
      const translation: NlTranslationOut = { expression: t.expression, claimed_answer: t.claimed_answer, reasoning: t.reasoning, confidence: t.confidence };
      if (!t.is_math || !t.expression) {
        return failed(200, 'NOT_MATH_QUERY', query, provider, NL.notMath, 'the query was not recognised as a mathematical question', { translation });
      }
      // the math engine reads the NFKC form, where a fullwidth or small equals sign (＝ ﹦) is '='
      if (t.expression.normalize('NFKC').includes('=')) {
        return failed(422, 'ERROR', query, provider, NL.translationInvalid, 'the translation is an equation, not an expression to evaluate', { translation });
      }
      const math = deps.math();
      if (!math) return failed(503, 'ERROR', query, provider, NL.mathUnavailable, 'the math engine is not available on this server', { translation });
      const claimed = t.claimed_answer_exact !== null;
      // natural-language arithmetic is about real numbers: √ of a negative is an error, not 2i
      const input: Record<string, unknown> = { expression: t.expression, context: { domain: 'real' } };
      if (claimed) input.expected_value = t.claimed_answer_exact;
      const inner = await math.verify(input, { signal: opts.signal });
      const v = verificationOf(inner, claimed);
      if (!v) {
        const cid = typeof inner.developer_fields.constraint_id === 'string' ? inner.developer_fields.constraint_id : NL.notEvaluable;
        const policy = inner.status === 'BLOCKED' && POLICY_CONSTRAINTS.has(cid);
        const why = inner.status === 'BLOCKED' ? inner.agent_message : 'the translated expression has no numeric value (symbolic or complex)';
        // the engine itself failing (deadline, crash) is the service's problem, not the translation's
        const http = policy ? 403 : ENGINE_FAILURES.has(cid) ? 503 : 422;
        return failed(http, policy ? 'BLOCKED' : 'ERROR', query, provider, cid, why, {
          translation,
          verification: { calculated_value: null, calculated_value_exact: null, is_correct: null, diff: null, inner_status: 'FAILED' as InnerStatus },
        });
      }
      if (inner.status !== 'VERIFIED') return inconclusive(query, provider, translation, v, inner);
      // spec rule 1: a verified inner result surfaces only after its attestation is ISSUED
      const issuer = deps.attestation();
      const att = issuer
        ? await issuer.issue(inner, { engine: 'math', query: normalizeMathInput(t.expression), org_id: opts.orgId ?? null })
        : { is_issued: false, token: null, error_code: 'CRYPTO_UNAVAILABLE', attestation_id: null };
      if (!att.is_issued || !att.token) {
        const code = att.error_code ?? 'SIGNING_FAILURE';
        return failed(503, 'BLOCKED', query, provider, NL.signingError, 'the result could not be attested, so it is withheld', {
          // nothing of the evaluation surfaces without its attestation, not even whether the claim held
          translation,
          attestationError: code,
          errorCode: code,
        });
      }
      return inconclusive(query, provider, translation, v, inner, { token: att.token, id: att.attestation_id ?? null });
    },
  };
}

export type NlVerifier = ReturnType<typeof createNlVerifier>;
