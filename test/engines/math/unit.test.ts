/**
 * The math engine's in-process tests (test/engines/math/unit/), run in one test process: each loads
 * the engine and mathjs, which cost a process per file about a second of CPU for tests that run in
 * milliseconds. The route and HTTP cases keep files of their own.
 */
import './unit/answer-forms.js';
import './unit/answers.js';
import './unit/corpus.js';
import './unit/cost.js';
import './unit/equations.js';
import './unit/grader-pairs.js';
import './unit/latex.js';
import './unit/magnitude.js';
import './unit/proof.js';
import './unit/reciprocal-trig.js';
import './unit/roots.js';
import './unit/syntax.js';
import './unit/tolerance.js';
import './unit/values.js';
