import type { Plugin } from '../core/types.js';
import health from '../plugins/health/index.js';
import batch from '../plugins/batch/index.js';
import sqlEngine from '../plugins/engines/sql/index.js';
import codeEngine from '../plugins/engines/code/index.js';
import logicEngine from '../plugins/engines/logic/index.js';
import attestation from '../plugins/attestation/index.js';
import verificationContext from '../plugins/verification-context/index.js';
import badges from '../plugins/badges/index.js';
import a2a from '../plugins/a2a/index.js';

/**
 * The composition root: the one place that names the built-in plugins. Order matters only for
 * hooks (they run in registration order): authentication and limits register before audit.
 */
export const builtinPlugins: Plugin[] = [health, logicEngine, codeEngine, sqlEngine, batch, attestation, verificationContext, badges, a2a];
