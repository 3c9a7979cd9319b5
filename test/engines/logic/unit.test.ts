/**
 * The logic engine's in-process tests (test/engines/logic/unit/), run in one test process: each
 * loads z3's wasm, which cost a process per file about a second of CPU. The route, HTTP and
 * deadline cases keep files of their own.
 */
import './unit/check.js';
import './unit/corpus.js';
import './unit/dsl.js';
import './unit/engine.js';
import './unit/presolve.js';
import './unit/strategy.js';
import './unit/verifier.js';
import './unit/z3-wasm.js';
