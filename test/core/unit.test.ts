/**
 * The kernel's in-process tests (test/core/unit/), run in one test process: canonical JSON, host
 * names, repeated JSON members, verdicts, signing, configuration, egress checks, plugin seams and
 * import cycles, with no server.
 */
import './unit/admission.js';
import './unit/canonical.js';
import './unit/cli.js';
import './unit/egress.js';
import './unit/config.js';
import './unit/es256.js';
import './unit/host-name.js';
import './unit/import-cycles.js';
import './unit/json-keys.js';
import './unit/jwks-keyset.js';
import './unit/metrics-accept.js';
import './unit/plugin-aliases.js';
import './unit/plugin-seams.js';
import './unit/public-url.js';
import './unit/strict-json.js';
import './unit/verdict.js';
