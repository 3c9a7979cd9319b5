import { HttpError } from '../../../core/errors.js';
import type { App, Plugin, Verifier } from '../../../core/types.js';
import { blocked } from '../../../core/verdict.js';
import type { LlmTranslator } from '../../providers/index.js';
import { NL } from './errors.js';
import { registerRoutes } from './routes.js';
import { createNlVerifier, type Issuer, type NlRequest } from './verifier.js';

/**
 * Natural-language math: `POST /verify/natural_language`. A language model (or the local rules)
 * translates; the math engine evaluates the translation exactly; the answer is never more than
 * INCONCLUSIVE because the translation is not proven. See docs/engines/natural-language.md.
 */
export { createNlVerifier } from './verifier.js';
export type { NlRequest, NlVerifier, NlDeps, Issuer } from './verifier.js';
export type { NlBody, NlReply, TrustBoundary } from './body.js';
export { NL as NlConstraints } from './errors.js';

const MAX_QUERY = 10_000;

const plugin: Plugin = {
  name: 'natural-language',
  register(app: App) {
    const verifier = createNlVerifier({
      translator: () => app.service<LlmTranslator>('llm.translator'),
      math: () => app.service<Verifier>('verifier.math'),
      attestation: () => app.service<Issuer>('attestation'),
    });
    registerRoutes(app, verifier);
    // composite routes (batch) get the same flow and its unified verdict; a request-level refusal
    // (unknown provider, 503 from the math pool) becomes a BLOCKED verdict for that item
    app.provide<Verifier>('verifier.natural_language', {
      async verify(input, opts) {
        const req: NlRequest = { query: typeof input.query === 'string' ? input.query : '' };
        if (typeof input.provider === 'string') req.provider = input.provider;
        if (!req.query || req.query.length > MAX_QUERY) {
          return blocked(`query must be a non-empty string of at most ${MAX_QUERY} characters`, NL.translationInvalid, { is_valid: false });
        }
        try {
          return (await verifier.verify(req, { signal: opts?.signal, orgId: opts?.principal?.orgId ?? null })).body.diagnostic;
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          return blocked(err.detail, err.constraintId ?? NL.translationFailed, { is_valid: false, error: err.code });
        }
      },
    });
  },
};

export default plugin;
