// HTTP only: the route's declaration; the handler hands the validated body to the verifier and
// returns the verdict on the reply (the kernel renders the body, hooks read reply.verdict).
import { SCHEMA_ID } from './schema.mjs';
import { ENGINE } from './verifier.mjs';

/**
 * @param {import('../../../core/types.js').App} app
 * @param {ReturnType<typeof import('./verifier.mjs').createVerifier>} verifier
 */
export function registerRoutes(app, verifier) {
  app.route({
    method: 'POST',
    path: '/verify/word-count',
    auth: 'apiKey',
    scope: 'verify:read',
    schema: { body: SCHEMA_ID },
    bodyLimit: 256 * 1024,
    verification: { attest: false },
    async handler(ctx) {
      const verdict = await verifier.run(ctx.body, ctx.signal);
      return { verdict, subject: { engine: ENGINE.name, query: ctx.body.text } };
    },
  });
}
