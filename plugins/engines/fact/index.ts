import { describeFieldErrors, HttpError } from '../../../core/errors.js';
import type { App, Plugin, Verifier } from '../../../core/types.js';
import { blocked } from '../../../core/verdict.js';
import type { LlmTranslator } from '../../providers/index.js';
import { ENGINE_NAME, ENGINE_VERSION, type FactOutcome } from './rules.js';
import { registerRoutes, SCHEMA_BASE } from './routes.js';
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
  provides: ['verifier.fact'],
  optional: ['llm.translator'],
  register(app: App) {
    const engine = app.engine({ name: ENGINE_NAME, version: ENGINE_VERSION, module: new URL('./engine.js', import.meta.url) });
    const verifier = createFactVerifier({
      translator: () => app.service('llm.translator'),
      // judging grows with the context: worker pool, never the event loop (issue 12, item 8)
      judge: (claim, context, signal) => engine.run<FactOutcome>('judgeFact', { claim, context }, { signal }),
    });
    registerRoutes(app, verifier);
    // composite routes (batch items of type `fact`): the route's body schema, refusals as a BLOCKED verdict
    app.provide('verifier.fact', {
      async verify(input, opts) {
        // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
        const body = { ...input };
        const errors = app.validate(`${SCHEMA_BASE}/request.json`, body);
        if (errors.length) return blocked(`Invalid fact request: ${describeFieldErrors(errors)}.`, INVALID, { is_valid: false, errors });
        const { claim, context, provider } = body as unknown as FactRequest;
        const req: FactRequest = { claim, context };
        if (provider !== undefined) req.provider = provider;
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
