/**
 * The bench's own tests (test/bench/unit/), run in one test process: the harness, the checked
 * copy of the shared corpus, the OWASP benchmark's scoring and the HTTP bench's plot. A process per file cost the suite a Node start and the test runner's
 * loaders each.
 */
import './unit/corpus-copy.js';
import './unit/cpu-stages.js';
import './unit/harness.js';
import './unit/owasp-score.js';
import './unit/owasp-recombine.js';
import './unit/plot-cli.js';
import './unit/plot-svg.js';
