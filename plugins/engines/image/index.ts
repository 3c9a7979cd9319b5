import type { App, Plugin, Verifier } from '../../../core/types.js';
import { registerRoutes } from './routes.js';
import { imageVerifier } from './verifier.js';

export { readImageHeader } from './header.js';
export { analyseClaim } from './claims.js';
export { MAX_IMAGE_BYTES } from './verifier.js';

/**
 * POST /verify/image: claims about the file's format, dimensions and size are proven from its header
 * bytes; claims about what it shows need a vision model and are answered VLM_REQUIRED. Header
 * parsing reads a few hundred bytes at most, so it runs on the request thread.
 */
const imagePlugin: Plugin = {
  name: 'image',
  provides: ['verifier.image'],
  /** its name before 0.x: still accepted in plugins.disabled, with a warning */
  aliases: ['engine-image'],
  register(app: App) {
    registerRoutes(app);
    app.provide('verifier.image', imageVerifier);
  },
};

export default imagePlugin;
