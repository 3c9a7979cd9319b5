import { describeFieldErrors, HttpError } from '../../../core/errors.js';
import type { App, Plugin, Verifier } from '../../../core/types.js';
import { blocked } from '../../../core/verdict.js';
import type { LlmTranslator } from '../../providers/index.js';
import { NL } from './errors.js';
import { registerRoutes, SCHEMA_BASE } from './routes.js';
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

const plugin: Plugin = {
  name: 'natural-language',
  provides: ['verifier.natural_language'],
  optional: ['llm.translator', 'verifier.math'],
  // looked up per request: attestation registers after this plugin
  late: ['attestation'],
  register(app: App) {
    const verifier = createNlVerifier({
      translator: () => app.service('llm.translator'),
      math: () => app.service('verifier.math'),
      attestation: () => app.service('attestation'),
    });
    registerRoutes(app, verifier);
    // composite routes (batch) get the route's body schema and flow, and its unified verdict; a refusal
    // (unknown provider, 503 from the math pool) becomes a BLOCKED verdict for that item
    app.provide('verifier.natural_language', {
      async verify(input, opts) {
        // a copy: the schema's defaults are filled in place and the caller's item is not ours to change
        const body = { ...input };
        const errors = app.validate(`${SCHEMA_BASE}/request.json`, body);
        if (errors.length) return blocked(`Invalid natural-language request: ${describeFieldErrors(errors)}.`, NL.translationInvalid, { is_valid: false, errors });
        const { query, provider } = body as unknown as NlRequest;
        const req: NlRequest = { query };
        if (provider !== undefined) req.provider = provider;
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
