import { HttpError } from '../../../core/errors.js';
import type { App, Plugin, Verifier } from '../../../core/types.js';
import { blocked } from '../../../core/verdict.js';
import type { LlmTranslator } from '../../providers/index.js';
import { ENGINE_NAME, ENGINE_VERSION, LIMITS, type FactOutcome } from './rules.js';
import { registerRoutes } from './routes.js';
import { createFactVerifier, type FactRequest } from './verifier.js';

/**
 * Fact checking against a supplied context: `POST /verify/fact`. Deterministic rules decide;
 * a language model's opinion is advisory only. See docs/engines/fact.md.
 */
export { createFactVerifier, PROVIDER_NONE } from './verifier.js';
export type { FactRequest, FactReply, FactVerifier } from './verifier.js';
export { judge, tokens, sentences, LIMITS, INEXACT, ENGINE_NAME, ENGINE_VERSION } from './rules.js';

const INVALID = 'fact_verifier.invalid_request';

const plugin: Plugin = {
  name: 'fact',
  register(app: App) {
    const engine = app.engine({ name: ENGINE_NAME, version: ENGINE_VERSION, module: new URL('./engine.js', import.meta.url) });
    const verifier = createFactVerifier({
      translator: () => app.service<LlmTranslator>('llm.translator'),
      // judging grows with the context: worker pool, never the event loop (issue 12, item 8)
      judge: (claim, context, signal) => engine.run<FactOutcome>('judgeFact', { claim, context }, { signal }),
    });
    registerRoutes(app, verifier);
    // composite routes (batch items of type `fact`): the request schema's checks as a BLOCKED verdict
    app.provide<Verifier>('verifier.fact', {
      async verify(input, opts) {
        const { claim, context, provider } = input as Record<string, unknown>;
        if (typeof claim !== 'string' || !claim.trim() || claim.length > LIMITS.claimChars) {
          return blocked(`claim must be a non-empty string of at most ${LIMITS.claimChars} characters`, INVALID, { is_valid: false });
        }
        if (typeof context !== 'string' || !context.trim() || context.length > LIMITS.contextChars) {
          return blocked(`context must be a non-empty string of at most ${LIMITS.contextChars} characters`, INVALID, { is_valid: false });
        }
        const req: FactRequest = { claim, context };
        if (typeof provider === 'string') req.provider = provider;
        try {
          return (await verifier.verify(req, { signal: opts?.signal })).diagnostic;
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          return blocked(err.detail, INVALID, { is_valid: false, error: err.code });
        }
      },
    });
  },
};

export default plugin;
