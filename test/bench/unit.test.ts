/**
 * The bench's own tests (test/bench/unit/), run in one test process: the harness and the checked
 * copy of the shared corpus. A process per file cost the suite a Node start and the test runner's
 * loaders each.
 */
import './unit/corpus-copy.js';
import './unit/cpu-stages.js';
import './unit/harness.js';
