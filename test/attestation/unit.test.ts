/**
 * Attestation's in-process tests (test/attestation/unit/), run in one test process: issuing,
 * pruning and the trust gate, with no server.
 */
import './unit/issue.js';
import './unit/prune.js';
import './unit/trust-gate.js';
