/**
 * The sidecar's in-process tests (test/sidecar/unit/), run in one test process: verify items and
 * SARIF, the client's transport, the node flags of `npm start`. A process per file cost the suite
 * a Node start and the test runner's loaders each, for tests that run in milliseconds.
 */
import './unit/client-transport.js';
import './unit/node-flags.js';
import './unit/sarif.js';
import './unit/verify-items.js';
