import type { App, Plugin } from '../../../core/types.js';
import { ENGINE_NAME, ENGINE_VERSION } from './meta.js';
import { mathRoutes } from './routes.js';
import { mathVerifier } from './verifier.js';

export { ENGINE_NAME, ENGINE_VERSION } from './meta.js';
export type { MathRequest } from './engine.js';
export { C as MathConstraints } from './errors.js';
export { normalizeMathInput } from './normalize.js';

/**
 * Exact math verification: identities proven or refuted in exact arithmetic, values computed,
 * expected values checked under the bounded-tolerance policy. See docs/engines/math.md.
 */
const mathPlugin: Plugin = {
  name: 'math',
  provides: ['verifier.math'],
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-math'],
  register(app: App) {
    const engine = app.engine({
      name: ENGINE_NAME,
      version: ENGINE_VERSION,
      module: new URL('./engine.js', import.meta.url),
      // loading mathjs and decimal.js dominates a cold worker; /readyz waits for it
      warmup: 'warmup',
    });
    mathRoutes(app, engine);
    // composite routes (batch, consensus, A2A) reach the engine through this service
    app.provide('verifier.math', mathVerifier(app, engine));
  },
};

export default mathPlugin;
