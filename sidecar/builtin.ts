import type { Plugin } from '../core/types.js';
import health from '../plugins/health/index.js';
import batch from '../plugins/batch/index.js';
import sqlEngine from '../plugins/engines/sql/index.js';
import attestation from '../plugins/attestation/index.js';
import verificationContext from '../plugins/verification-context/index.js';
import badges from '../plugins/badges/index.js';

/**
 * The composition root: the one place that names the built-in plugins. Order matters only for
 * hooks (they run in registration order): authentication and limits register before audit.
 */
export const builtinPlugins: Plugin[] = [health, sqlEngine, batch, attestation, verificationContext, badges];
