import type { EngineHandle } from '../../../core/types.js';
import type { LogicRequest as GeneratedLogicRequest } from '../../../schemas/gen/index.js';
import { isDslInput } from './dsl.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, type SolveOutcome } from './outcome.js';
import { failure, verdictReply, type LogicReply, type Translation } from './verdict.js';

/**
 * The request-level flow shared by the route and by other plugins (batch, A2A, consensus) through
 * the `verifier.logic` service: natural language goes to a translator (never guessed at) and DSL
 * text goes to the z3 worker, which parses it before anything else. The parse grows with the query
 * (75–130 µs a corpus line, milliseconds for the largest accepted) and was done on the main thread
 * first, where it was the logic route's largest own cost (issue 45): the worker answers a malformed
 * query with the same outcome, before z3 sees it.
 */

/** `provider_used` for DSL input: no language model was involved. */
export const PROVIDER_DSL = 'dsl';
/** `provider_used` when natural language arrives and no translator is configured. */
export const PROVIDER_NONE = 'none';
/** the pool deadline sits this far past z3's own timeout, so z3 normally answers first */
export const POOL_GRACE_MS = 2000;

/**
 * What this plugin expects from `app.service('llm.translator')` (provided by a language-model plugin).
 * The returned expression is untrusted text: it goes through the same parser as any DSL query.
 */
export interface LlmTranslator {
  translate(req: { target: 'logic_dsl'; text: string; provider?: string; signal?: AbortSignal }): Promise<Translation>;
}

/** POST /verify/logic's body: schemas/logic/request.json, generated (schemas/gen/logic.gen.ts) */
export type LogicRequest = GeneratedLogicRequest;

export interface LogicVerifier {
  /**
   * `queueBudget`: the route's own call, refused at once (503) when z3's queue would hold it past
   * workers.max_queue_wait_ms; composite callers (batch, consensus, A2A) leave it off and wait their turn
   */
  verify(req: LogicRequest, signal?: AbortSignal, o?: { queueBudget?: boolean }): Promise<LogicReply>;
}

export function createLogicVerifier(deps: {
  engine: Pick<EngineHandle, 'run'>;
  translator: () => LlmTranslator | undefined;
  timeoutMs?: number;
}): LogicVerifier {
  const ceiling = Math.min(deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);

  async function solveDsl(query: string, timeoutMs: number, provider: string, translation: Translation | undefined, signal?: AbortSignal, queueBudget?: boolean) {
    try {
      const o = await deps.engine.run<SolveOutcome>('solve', { query, timeoutMs }, { timeoutMs: timeoutMs + POOL_GRACE_MS, signal, queueBudget });
      return verdictReply(o, provider, translation);
    } catch (err) {
      const kind = (err as { kind?: string })?.kind;
      if (kind === 'timeout') return failure('timeout', `solver timeout after ${timeoutMs} ms (worker deadline)`, provider, { translation });
      return failure('engine_unavailable', 'the logic engine is unavailable', provider, { translation });
    }
  }

  return {
    async verify(req, signal, o) {
      const timeoutMs = Math.min(req.timeout_ms ?? ceiling, ceiling);
      if (isDslInput(req.query) || req.query.trim() === '') return solveDsl(req.query, timeoutMs, PROVIDER_DSL, undefined, signal, o?.queueBudget);
      const translator = deps.translator();
      if (!translator) return failure('translator_unavailable', 'natural-language input needs a translator; no translator configured', PROVIDER_NONE);
      let translation: Translation;
      try {
        translation = await translator.translate({ target: 'logic_dsl', text: req.query, provider: req.provider, signal });
      } catch (err) {
        // a translator that read the text and found it outside what it can translate: the query's fault (400), not the service's
        const e = err as { name?: string; code?: string; message?: string; provider?: string };
        if (e?.name === 'ProviderError' && e.code === 'cannot_translate') {
          return failure('translation_invalid', `the translator cannot read this query: ${String(e.message)}`, String(e.provider ?? req.provider ?? PROVIDER_NONE));
        }
        return failure('translation_failed', 'the language-model translator failed', req.provider ?? PROVIDER_NONE);
      }
      if (typeof translation?.expression !== 'string' || !isDslInput(translation.expression)) {
        const t = { expression: String(translation?.expression ?? ''), provider: String(translation?.provider ?? req.provider ?? PROVIDER_NONE) };
        return failure('translation_invalid', 'the translator did not produce a DSL formula', t.provider, { translation: t });
      }
      return solveDsl(translation.expression, timeoutMs, translation.provider, translation, signal, o?.queueBudget);
    },
  };
}
