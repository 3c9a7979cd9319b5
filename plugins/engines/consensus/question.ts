import { HttpError } from '../../../core/errors.js';
import type { App, Verifier } from '../../../core/types.js';
import { unverifiable, type DiagnosticResult } from '../../../core/verdict.js';
import { untrustedReply, type LlmTranslator, type MathTranslation } from '../../providers/index.js';
import { C, ConsensusProblems } from './errors.js';
import { rationalVerifier } from './rational-verifier.js';
import type { ChainEntry, ConsensusResult } from './verifier.js';
import { candidates, type Candidate, type QueryKind } from './select.js';

/**
 * Questions in words (docs/engines/consensus.md, "Questions"). A query that is neither bare
 * arithmetic nor DSL goes through the `llm.translator` service first — math, then logic — and the
 * engines of the mode then check the translation independently. The translation is recorded as an
 * untrusted step of the chain and the consensus verdict is never VERIFIED: only the translated
 * expression is proven, not what the user meant (decisions §1).
 */
export interface TranslatedQuery {
  kind: QueryKind;
  engines: Candidate[];
  /** what the engines were given */
  checked: string;
  /** for a question that states no answer: the value proposed for the engines to prove */
  proposed: string | null;
  provider: string;
  step: ChainEntry & { untrusted: true; provider: string };
}

const ms = (start: number) => Math.round((performance.now() - start) * 1000) / 1000;

function step(provider: string, result: string, started: number): TranslatedQuery['step'] {
  return {
    engine: 'translator',
    method: `llm_translation:${provider}`,
    result,
    confidence: 0,
    latency_ms: ms(started),
    success: false,
    status: 'UNVERIFIABLE',
    proof_ref: null,
    constraint_id: C.translation,
    untrusted: true,
    provider,
  };
}

type ProviderFailure = { name?: string; code?: string; message?: string; provider?: string; modelOutput?: string };

function providerFailure(err: unknown, translator: LlmTranslator): never {
  const e = err as ProviderFailure;
  if (e?.name !== 'ProviderError') throw err;
  if (e.code === 'unknown_provider' || e.code === 'provider_not_configured') {
    throw new HttpError(ConsensusProblems.unknownProvider, String(e.message), { extensions: { available_providers: translator.available() } });
  }
  if (e.code === 'cancelled') throw err;
  throw new HttpError(ConsensusProblems.translationFailed, `the translator failed: ${String(e.message)}`, {
    constraintId: C.translationFailed,
    headers: { 'retry-after': '5' },
    extensions: { error_code: e.code, ...(typeof e.modelOutput === 'string' ? { translation: untrustedReply(e.modelOutput) } : {}) },
  });
}

const unsupported = (why: string) =>
  new HttpError(ConsensusProblems.insufficientEngines, `no engine can answer this query: ${why}`, {
    constraintId: C.insufficientEngines,
    extensions: { query_kind: 'unsupported', engines_possible: [], engines_required: 1 },
  });

/** A value for the engines to prove, computed exactly: rationals in-process, else the math engine. */
async function propose(app: App, expression: string, signal: AbortSignal): Promise<string | null> {
  const r = await rationalVerifier.verify({ expression });
  if (r.status === 'UNVERIFIABLE' && typeof r.developer_fields.value === 'string') return r.developer_fields.value;
  const math = app.service('verifier.math');
  if (!math) return null;
  const m = await math.verify({ expression, context: { domain: 'real' } }, { signal });
  const f = m.developer_fields;
  if (m.status !== 'UNVERIFIABLE' || f.is_symbolic === true || f.is_complex === true) return null;
  const v = typeof f.value_exact === 'string' ? f.value_exact : typeof f.value === 'number' || typeof f.value === 'string' ? String(f.value) : null;
  return v !== null && /^-?[0-9]+(?:\.[0-9]+)?(?:\/[0-9]+)?$/.test(v) ? v : null;
}

function mathCandidates(checked: string): { kind: QueryKind; engines: Candidate[] } {
  const c = candidates(checked);
  // functions (sqrt, log, …) are outside the rational and DSL grammars: only the math engine reads them
  return c.kind === 'arithmetic' ? c : { kind: 'arithmetic', engines: [{ engine: 'math', method: 'exact_symbolic', input: { expression: checked } }] };
}

export async function translateQuestion(app: App, query: string, provider: string | undefined, signal: AbortSignal): Promise<TranslatedQuery> {
  const translator = app.service('llm.translator');
  if (!translator) throw unsupported('it is neither arithmetic nor DSL, and no translator is configured');
  const started = performance.now();
  let t: MathTranslation | null = null;
  try {
    t = await translator.translate({ target: 'math', text: query, provider, signal });
  } catch (err) {
    if ((err as ProviderFailure)?.code !== 'cannot_translate') providerFailure(err, translator);
  }
  if (t && t.is_math && t.expression) {
    // the math engine reads the NFKC form, where a fullwidth or small equals sign (＝ ﹦) is '='
    if (t.expression.normalize('NFKC').includes('=')) throw unsupported('the translation is an equation, not an expression');
    if (t.claimed_answer_exact !== null) {
      const checked = `${t.expression} = ${t.claimed_answer_exact}`;
      return { ...mathCandidates(checked), checked, proposed: null, provider: t.provider, step: step(t.provider, checked, started) };
    }
    const value = await propose(app, t.expression, signal);
    const checked = value === null ? t.expression : `${t.expression} = ${value}`;
    return { ...mathCandidates(checked), checked, proposed: value, provider: t.provider, step: step(t.provider, t.expression, started) };
  }
  // not arithmetic: perhaps constraints, for the logic engine
  let dsl: { expression: string; provider: string };
  try {
    dsl = await translator.translate({ target: 'logic_dsl', text: query, provider, signal });
  } catch (err) {
    if ((err as ProviderFailure)?.code === 'cannot_translate') throw unsupported(`the translator read neither arithmetic nor constraints (${String((err as Error).message)})`);
    providerFailure(err, translator);
  }
  const c = candidates(dsl.expression);
  if (c.kind !== 'logic_dsl') throw unsupported('the logic translation is not a DSL formula');
  return { ...c, checked: dsl.expression, proposed: null, provider: dsl.provider, step: step(dsl.provider, dsl.expression, started) };
}

/**
 * The consensus of a translated query: the translation step leads the chain, a proposed value
 * becomes the answer only when the engines proved it, and the verdict is UNVERIFIABLE with the
 * engines' consensus kept as `inner_verdict`.
 */
export function asTranslated(r: ConsensusResult, q: TranslatedQuery, query: string): ConsensusResult {
  let final_answer = r.final_answer;
  let meets = r.meets_requirement;
  if (q.proposed !== null) {
    const proven = r.final_answer === 'true';
    final_answer = proven ? q.proposed : 'NO_CONSENSUS';
    meets = proven && r.meets_requirement;
  }
  const inner: DiagnosticResult = r.diagnostic;
  const diagnostic = unverifiable(
    `${inner.status === 'VERIFIED' ? `All ${r.engines_used} engine(s) proved` : 'The engines checked'} the translated query "${q.checked}" (answer: ${final_answer}); the translation itself is not verified.`,
    {
      ...inner.developer_fields,
      query_semantics_verified: false,
      user_query: query,
      translated_query: q.checked,
      ...(q.proposed !== null ? { proposed_value: q.proposed } : {}),
      inner_verdict: { status: inner.status, proof_ref: inner.proof_ref },
      advisory_checks: [{ name: 'llm_translation', advisory_only: true, constraint_id: C.translation, details: { provider: q.provider } }],
    },
  );
  return { ...r, final_answer, meets_requirement: meets, verification_chain: [q.step, ...r.verification_chain], diagnostic };
}
