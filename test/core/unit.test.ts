/**
 * The kernel's in-process tests (test/core/unit/), run in one test process: canonical JSON,
 * verdicts, signing, configuration, plugin seams and import cycles, with no server.
 */
import './unit/canonical.js';
import './unit/config.js';
import './unit/es256.js';
import './unit/import-cycles.js';
import './unit/plugin-aliases.js';
import './unit/plugin-seams.js';
import './unit/verdict.js';
