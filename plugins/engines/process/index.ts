import type { App, Plugin, Verifier } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { processVerifier } from './verifier.js';

export { checkIrac, checkMilestones, normalise } from './engine.js';
export { LIMITS } from './verifier.js';

/**
 * POST /verify/process: reasoning-trace structure (IRAC markers or milestone phrases). Matching is
 * linear-time over at most 200k characters, so it runs on the request thread: a worker hop would
 * cost more than the scan. See docs/engines/process.md.
 */
const processPlugin: Plugin = {
  name: 'process',
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-process'],
  register(app: App) {
    registerRoutes(app);
    app.provide<Verifier>('verifier.process', processVerifier);
  },
};

export default processPlugin;
