import type { App, Reply, RequestContext, Verifier } from '../../../core/types.js';
import { HttpError } from '../../../core/errors.js';
import { exactMember } from '../../../core/json/exact.js';
import { diagnosticBody } from '../../../core/verdict.js';
import { C, ConsensusProblems } from './errors.js';
import { asTranslated, translateQuestion, type TranslatedQuery } from './question.js';
import { aggregate, runEngines, unavailable, type ConsensusResult } from './verifier.js';
import { candidates, REQUIRED, type Mode } from './select.js';

const S = 'https://proofgate.dev/schemas/consensus';

interface ConsensusRequest {
  query: string;
  verification_mode: Mode;
  min_confidence: number;
  provider?: string;
}

function fields(r: ConsensusResult): Record<string, unknown> {
  return {
    final_answer: r.final_answer,
    confidence: r.confidence,
    engines_used: r.engines_used,
    agreement_status: r.agreement_status,
    verification_chain: r.verification_chain,
    total_latency_ms: r.total_latency_ms,
    meets_requirement: r.meets_requirement,
  };
}

/** `deadline`: the one aggregate deadline over every engine of a request, in ms */
export function registerRoutes(app: App, deadline: number): void {
  app.route({
    method: 'POST',
    path: '/verify/consensus',
    auth: 'apiKey',
    scope: 'verify:read',
    verification: { attest: false },
    schema: { body: `${S}/request.json`, response: `${S}/response.json` },
    async handler(ctx: RequestContext): Promise<Reply> {
      const req = ctx.body as ConsensusRequest;
      const started = process.hrtime.bigint();
      const required = REQUIRED[req.verification_mode];
      let { kind, engines } = candidates(req.query);
      // a question in words: translated first (untrusted), then checked by the engines
      let translated: TranslatedQuery | null = null;
      if (kind === 'unsupported') {
        translated = await translateQuestion(app, req.query, req.provider, ctx.signal);
        ({ kind, engines } = translated);
      }
      if (engines.length < required) {
        throw new HttpError(
          ConsensusProblems.insufficientEngines,
          `${engines.length} engine(s) can answer a ${kind} query; mode ${req.verification_mode} needs ${required}.`,
          { constraintId: C.insufficientEngines, extensions: { query_kind: kind, engines_possible: engines.map((e) => e.engine), engines_required: required } },
        );
      }
      const available = engines.flatMap((e) => {
        const verifier = app.service(`verifier.${e.engine}`);
        return verifier ? [{ ...e, verifier }] : [];
      });
      if (available.length < required) {
        const missing = engines.filter((e) => !app.service(`verifier.${e.engine}`)).map((e) => e.engine);
        throw new HttpError(ConsensusProblems.engineUnavailable, `mode ${req.verification_mode} needs ${required} engines; unavailable: ${missing.join(', ')}.`, {
          constraintId: C.engineUnavailable,
          headers: { 'retry-after': '5' },
        });
      }
      // single and high take the most preferred engines; maximum runs every one that can answer
      const chosen = req.verification_mode === 'maximum' ? available : available.slice(0, required);
      const chain = await runEngines(chosen, { deadlineMs: deadline, signal: ctx.signal, principal: ctx.principal });
      const down = chain.filter((e) => e.constraint_id?.endsWith('.engine_unavailable'));
      if (down.length) {
        throw unavailable(down.map((e) => e.engine));
      }
      const totalMs = Number(process.hrtime.bigint() - started) / 1e6;
      // the claimed threshold is compared as written (0.95000000000000000001 is not 0.95)
      const minConfidence = (ctx.rawBody && exactMember(ctx.rawBody, 'min_confidence')) ?? req.min_confidence;
      const aggregated = aggregate(translated?.checked ?? req.query, req.verification_mode, chain, minConfidence, Math.round(totalMs * 1000) / 1000);
      const result = translated ? asTranslated(aggregated, translated, req.query) : aggregated;
      if (!result.meets_requirement) {
        throw new HttpError(
          ConsensusProblems.belowThreshold,
          `confidence ${result.confidence}% is below min_confidence ${req.min_confidence} (${result.agreement_status}).`,
          { constraintId: C.belowThreshold, extensions: { consensus: diagnosticBody(result.diagnostic, fields(result)) } },
        );
      }
      return { status: 200, verdict: result.diagnostic, body: fields(result) };
    },
  });
}
