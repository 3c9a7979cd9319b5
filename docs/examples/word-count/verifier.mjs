// The engine-call layer: a request in, engine calls, a DiagnosticResult out. The route and the
// `verifier.word-count` service (batch, consensus and other composite routes) both go through it.
import { C, problems } from './errors.mjs';
import { SCHEMA_ID } from './schema.mjs';

export const ENGINE = { name: 'word-count', version: '1.0.0' };

/**
 * @param {import('../../../core/types.js').App} app
 * @param {import('../../../core/types.js').EngineHandle} engine
 */
export function createVerifier(app, engine) {
  const { verified, unverifiable, blocked, engineFailure, HttpError } = app.kit;
  const { unavailable } = problems(app.kit);

  /** a body that passed the schema → its verdict; without a claim the count is only a computation */
  async function run({ text, claimed_words }, signal) {
    let words;
    try {
      words = await engine.run('countWords', text, { signal });
    } catch (err) {
      // fail closed: a deadline or a crash proves nothing (a full pool is a 503)
      const f = engineFailure(err, () => new HttpError(unavailable, 'the word count engine is overloaded or starting'));
      if (!f) throw err;
      return blocked(`The count did not complete (${f.kind}); nothing was proven.`, C.timeout, { reason: f.kind });
    }
    if (claimed_words === undefined) return unverifiable(`The text has ${words} words.`, { words });
    const holds = words === claimed_words;
    return verified(
      holds ? 'The word count is correct.' : `The text has ${words} words, not ${claimed_words}.`,
      { is_valid: holds, words, claimed_words },
      { engine: ENGINE.name, engine_version: ENGINE.version, input: text, parameters: { claimed_words }, result: { words } },
    );
  }

  return {
    run,
    /** the service form: the route's own schema decides; an unusable input is a BLOCKED verdict, not a 400 */
    async verify(input, opts = {}) {
      const errors = app.validate(SCHEMA_ID, input);
      if (errors.length) return blocked(`Invalid word count request: ${errors[0].field} ${errors[0].message}.`, C.invalidRequest);
      return run(input, opts.signal);
    },
  };
}
