import type { Plugin } from '../../core/types.js';
import { registerRoutes } from './routes.js';

export { renderBadge, STATUS_COLORS, PALETTE } from './render.js';

/** SVG badges for verification statuses, custom text and the live status of an attestation. */
const plugin: Plugin = { name: 'badges', optional: ['attestation.badge-link'], register: (app) => registerRoutes(app) };
export default plugin;
