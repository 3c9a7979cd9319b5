/**
 * The engines' small in-process tests (test/engines/unit/), run in one test process: parsers,
 * rules and verifiers of image, rag, process, fact, consensus, natural-language and stats, with no
 * server. A process per file cost the suite a Node start and the test runner's loaders each, for
 * tests that run in milliseconds. Engines with many such tests keep a runner of their own
 * (math, logic, code, sql).
 */
import './unit/consensus.js';
import './unit/fact-rules.js';
import './unit/image-header.js';
import './unit/natural-language-verifier.js';
import './unit/process-engine.js';
import './unit/rag-engine.js';
import './unit/stats.js';
