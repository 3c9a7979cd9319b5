import type { App, Plugin, Verifier } from '../../../core/types.js';
import { rationalVerifier } from './rational-verifier.js';
import { registerRoutes } from './routes.js';

export { candidates, REQUIRED } from './select.js';
export { rationalVerifier } from './rational-verifier.js';

/** spec: one 30-second aggregate deadline; plugin_config.consensus.deadline_ms may only lower it */
export const MAX_DEADLINE_MS = 30_000;

/** plugin_config.consensus, checked by the kernel at start-up */
const CONFIG_SCHEMA = {
  type: 'object',
  properties: { deadline_ms: { type: 'integer', minimum: 1, maximum: MAX_DEADLINE_MS } },
};

function deadlineMs(app: App): number {
  return (app.config.plugin_config?.consensus?.deadline_ms as number | undefined) ?? MAX_DEADLINE_MS;
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
  config: { schema: CONFIG_SCHEMA },
  register(app: App) {
    const deadline = deadlineMs(app);
    app.provide('verifier.rational', rationalVerifier);
    registerRoutes(app, deadline);
  },
};

export default consensusPlugin;
