import type { App, Plugin, Verifier } from '../../../core/types.js';
import { rationalVerifier } from './rational-verifier.js';
import { registerRoutes } from './routes.js';
import { consensusSettings, MAX_DEADLINE_MS } from './settings.js';

export { candidates, REQUIRED } from './select.js';
export { rationalVerifier } from './rational-verifier.js';

export { MAX_DEADLINE_MS } from './settings.js';

function deadlineMs(app: App): number {
  return app.settings(consensusSettings).deadline_ms ?? MAX_DEADLINE_MS;
}

/**
 * POST /verify/consensus: the same query through 1, 2 or 3+ independent engines reached via their
 * `verifier.<type>` services, under one aggregate deadline. See docs/engines/consensus.md for the
 * selection rules and the 422/503 choices.
 */
const consensusPlugin: Plugin = {
  name: 'consensus',
  provides: ['verifier.rational'],
  optional: ['llm.translator', 'verifier.math'],
  late: ['verifier.*'],
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-consensus'],
  settings: consensusSettings,
  register(app: App) {
    const deadline = deadlineMs(app);
    app.provide('verifier.rational', rationalVerifier);
    registerRoutes(app, deadline);
  },
};

export default consensusPlugin;
