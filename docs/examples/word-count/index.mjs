// An operator plugin, loaded from a path: `SVC_PLUGINS_EXTRA=./docs/examples/word-count/index.mjs`.
// It claims nothing it cannot prove: given `text` and a `claimed_words` count, it counts words in a
// worker thread and returns VERIFIED with is_valid true or false; without a claim the count is only
// a computation, so UNVERIFIABLE.

const SCHEMA_ID = 'https://example.org/schemas/word-count/request.json';

/** @param {import('../../../core/types.js').App} app */
function register(app) {
  const { verified, unverifiable } = app.kit;

  app.schema({
    $id: SCHEMA_ID,
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: {
      text: { type: 'string', maxLength: 100000 },
      claimed_words: { type: 'integer', minimum: 0 },
    },
  });

  const engine = app.engine({
    name: 'word-count',
    version: '1.0.0',
    module: new URL('./engine.mjs', import.meta.url),
    timeoutMs: 2000,
  });

  app.route({
    method: 'POST',
    path: '/verify/word-count',
    auth: 'apiKey',
    scope: 'verify:read',
    schema: { body: SCHEMA_ID },
    bodyLimit: 256 * 1024,
    tags: ['verification'],
    async handler(ctx) {
      const { text, claimed_words } = ctx.body;
      const words = await engine.run('countWords', text);
      if (claimed_words === undefined) {
        return { verdict: unverifiable(`The text has ${words} words.`, { words }), subject: { engine: 'word-count', query: text } };
      }
      const holds = words === claimed_words;
      const d = verified(
        holds ? 'The word count is correct.' : `The text has ${words} words, not ${claimed_words}.`,
        { is_valid: holds, words, claimed_words },
        { engine: 'word-count', engine_version: '1.0.0', input: text, parameters: { claimed_words }, result: { words } },
      );
      return { verdict: d, subject: { engine: 'word-count', query: text } };
    },
  });
}

export default { name: 'word-count', register };
