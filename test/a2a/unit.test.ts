/**
 * The A2A gateway's in-process tests (test/a2a/unit/), run in one test process: guards, buckets,
 * the trust boundary, signing and logging, verdict verification, the verify-message path, with no server of its own. A process per file cost the suite a
 * Node start and the test runner's loaders each, for tests that run in milliseconds.
 */
import './unit/code-guard.js';
import './unit/finance.js';
import './unit/gateway-logging.js';
import './unit/gateway-signing.js';
import './unit/logic.js';
import './unit/proxy-answers.js';
import './unit/proxy-mapping.js';
import './unit/proxy-rest-peer.js';
import './unit/proxy-upstream.js';
import './unit/token-bucket.js';
import './unit/trust-boundary.js';
import './unit/verify.js';
import './unit/verify-message.js';
