import type { App, Plugin, Verifier } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { ragVerifier } from './verifier.js';

export { parseRate, checkDrm } from './engine.js';
export { LIMITS, BODY_LIMIT } from './verifier.js';

/** POST /verify/rag: exact document-retrieval-mismatch rate against a threshold. See docs/engines/rag.md. */
const ragPlugin: Plugin = {
  name: 'rag',
  provides: ['verifier.rag'],
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-rag'],
  register(app: App) {
    registerRoutes(app);
    app.provide('verifier.rag', ragVerifier);
  },
};

export default ragPlugin;
