// An operator plugin, loaded from a path: `SVC_PLUGINS_EXTRA=./docs/examples/word-count/index.mjs`.
// It claims nothing it cannot prove: given `text` and a `claimed_words` count, it counts words in a
// worker thread and returns VERIFIED with is_valid true or false; without a claim the count is only
// a computation, so UNVERIFIABLE. Laid out as docs/plugins.md says: this file is the plugin object
// and its exported surface; routes.mjs, verifier.mjs, engine.mjs and errors.mjs hold the rest.
import { registerRoutes } from './routes.mjs';
import { REQUEST_SCHEMA } from './schema.mjs';
import { createVerifier, ENGINE } from './verifier.mjs';

/** the service other plugins reach it by (app.service), never by importing its files */
export const WORD_COUNT_SERVICE = 'verifier.word-count';
export { C as WordCountConstraints } from './errors.mjs';

/** @param {import('../../../core/types.js').App} app */
function register(app) {
  app.schema(REQUEST_SCHEMA);
  const engine = app.engine({ ...ENGINE, module: new URL('./engine.mjs', import.meta.url), timeoutMs: 2000 });
  const verifier = createVerifier(app, engine);
  registerRoutes(app, verifier);
  app.provide(WORD_COUNT_SERVICE, verifier);
}

export default { name: 'word-count', provides: [WORD_COUNT_SERVICE], register };
