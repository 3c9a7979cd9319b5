import { sha256Hex } from '../../../core/json/canonical.js';
import { HttpError } from '../../../core/errors.js';
import { unverifiable, verified, type DiagnosticResult } from '../../../core/verdict.js';
import type { FactOpinion, LlmTranslator } from '../../providers/index.js';
import type { FactRequest as GeneratedFactRequest } from '../../../schemas/gen/index.js';
import { FACT, FactProblems } from './errors.js';
import { ENGINE_NAME, ENGINE_VERSION, judge, type FactOutcome, type SentenceOutcome } from './rules.js';

/** POST /verify/fact's body: schemas/fact/request.json, generated (schemas/gen/fact.gen.ts) */
export type FactRequest = GeneratedFactRequest;

export interface FactReply {
  verdict: FactOutcome['verdict'];
  confidence: number;
  reasoning: string;
  provider_used: string;
  diagnostic: DiagnosticResult;
}

/** `provider_used` when no language model was consulted */
export const PROVIDER_NONE = 'none';
const LOCAL = 'local';

/** the sentence the verdict rests on, as evidence for the proof_ref and the caller */
function evidenceOf(o: FactOutcome): Record<string, unknown> | null {
  const pick = (s: SentenceOutcome) =>
    s.kind === 'refuted'
      ? { claim_sentence: s.claim, context_sentence_index: s.sentence.index, context_sentence: s.sentence.text, claim_value: s.claim_value, context_value: s.context_value }
      : s.kind === 'supported'
        ? { claim_sentence: s.claim, context_sentence_index: s.sentence.index, context_sentence: s.sentence.text }
        : null;
  if (o.verdict === 'REFUTED') return pick(o.sentences.find((s) => s.kind === 'refuted')!);
  if (o.verdict === 'SUPPORTED') return { matches: o.sentences.map(pick) };
  return null;
}

async function opinion(translator: LlmTranslator, provider: string, req: FactRequest, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const base = { name: 'llm_fact_opinion', advisory_only: true, constraint_id: FACT.llmOpinion };
  try {
    const text = `CONTEXT:\n${req.context}\n\nCLAIM:\n${req.claim}`;
    const o: FactOpinion = await translator.translate({ target: 'fact_opinion', text, provider, signal });
    return { ...base, details: { provider: o.provider, suggested_verdict: o.verdict, confidence: o.confidence, reasoning: o.reasoning } };
  } catch (err) {
    if ((err as { name?: string })?.name !== 'ProviderError') throw err;
    return { ...base, details: { provider, error_code: (err as { code: string }).code, error: (err as Error).message } };
  }
}

/**
 * POST /verify/fact as a function. The rules (rules.ts) alone set the verdict: SUPPORTED and
 * REFUTED are VERIFIED (the stated rule held on these exact texts; proof_ref binds claim, context
 * hash, rule and matched sentence), everything else INCONCLUSIVE / UNVERIFIABLE. A language model
 * is consulted only when the rules are inconclusive and a non-local provider is selected, and its
 * opinion is an advisory check that never changes the verdict (decisions §1).
 */
export function createFactVerifier(deps: {
  translator(): LlmTranslator | undefined;
  /** the rules, run where the caller says (the worker pool in the plugin); inline by default, for tests */
  judge?: (claim: string, context: string, signal?: AbortSignal) => Promise<FactOutcome> | FactOutcome;
}) {
  const runRules = deps.judge ?? judge;
  return {
    async verify(req: FactRequest, opts: { signal?: AbortSignal } = {}): Promise<FactReply> {
      const translator = deps.translator();
      let provider: string | null = null;
      if (translator) {
        try {
          provider = translator.resolve(req.provider);
        } catch (err) {
          const e = err as { name?: string; code?: string; message: string };
          if (e?.name !== 'ProviderError') throw err;
          const def = e.code === 'unknown_provider' ? FactProblems.unknownProvider : FactProblems.providerNotConfigured;
          throw new HttpError(def, e.message, { extensions: { available_providers: translator.available() } });
        }
      } else if (req.provider !== undefined) {
        throw new HttpError(FactProblems.providerNotConfigured, 'no language-model provider is configured on this server');
      }
      const o = await runRules(req.claim, req.context, opts.signal);
      const evidence = evidenceOf(o);
      const contradictory = o.sentences.some((s) => s.kind === 'contradictory');
      const fields: Record<string, unknown> = {
        is_valid: o.verdict === 'SUPPORTED',
        rule: o.rule,
        evidence,
        claim_sentences: o.sentences.length,
        engine_version: ENGINE_VERSION,
      };
      if (o.verdict !== 'INCONCLUSIVE') {
        const diagnostic = verified(o.reasoning, fields, {
          engine: ENGINE_NAME,
          engine_version: ENGINE_VERSION,
          input: { claim: req.claim, context_sha256: sha256Hex(req.context) },
          parameters: { rule: o.rule },
          result: { verdict: o.verdict, evidence },
        });
        return { verdict: o.verdict, confidence: 1, reasoning: o.reasoning, provider_used: PROVIDER_NONE, diagnostic };
      }
      const advisory: Record<string, unknown>[] = [];
      if (contradictory) {
        advisory.push({ name: 'contradictory_context', advisory_only: true, constraint_id: FACT.contradictoryContext, details: {} });
      }
      let used = PROVIDER_NONE;
      if (translator && provider && provider !== LOCAL) {
        advisory.push(await opinion(translator, provider, req, opts.signal));
        used = provider;
      }
      const diagnostic = unverifiable(o.reasoning, { ...fields, advisory_checks: advisory });
      return { verdict: 'INCONCLUSIVE', confidence: 0, reasoning: o.reasoning, provider_used: used, diagnostic };
    },
  };
}

export type FactVerifier = ReturnType<typeof createFactVerifier>;
